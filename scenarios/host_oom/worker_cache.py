"""DataLoader whose dataset caches decoded samples in every worker (memory grows per worker)."""
import numpy as np
import paddle
from paddle.io import DataLoader, Dataset


class CachedDataset(Dataset):
    def __init__(self):
        self.cache = {}

    def __getitem__(self, idx):
        if idx not in self.cache:
            self.cache[idx] = paddle.to_tensor(np.random.rand(3, 640, 640).astype("float32")).numpy()
        return self.cache[idx], np.array([idx % 80], dtype="int64")

    def __len__(self):
        return 100_000


print(f"paddle {paddle.__version__}")
loader = DataLoader(CachedDataset(), batch_size=16, num_workers=2, shuffle=False, use_shared_memory=False)
for i, (img, label) in enumerate(loader):
    if i % 10 == 0:
        print(f"iter {i}: batch {img.shape}")
