"""A detection-style dataset that reads records with the wrong key, loaded by DataLoader workers."""
import numpy as np
import paddle
from paddle.io import DataLoader, Dataset


class ListDataset(Dataset):
    def __init__(self, n=64):
        self.records = [{"img": np.random.rand(3, 32, 32).astype("float32"), "gt_class": i % 5} for i in range(n)]

    def __getitem__(self, idx):
        rec = self.records[idx]
        return rec["image"], np.array([rec["gt_class"]], dtype="int64")

    def __len__(self):
        return len(self.records)


if __name__ == "__main__":
    print(f"paddle {paddle.__version__}: building reader, batch_size 8, num_workers 2")
    loader = DataLoader(ListDataset(), batch_size=8, shuffle=True, num_workers=2)
    for epoch in range(1):
        for step, (x, y) in enumerate(loader):
            print(f"epoch {epoch} step {step} batch {x.shape}")
