"""Image-classification style training loop whose DataLoader workers pass big batches through /dev/shm."""
import os
import time

import numpy as np
import paddle
from paddle.io import DataLoader, Dataset

IMG = int(os.environ.get("IMG_SIZE", "512"))
BATCH = int(os.environ.get("BATCH_SIZE", "32"))
WORKERS = int(os.environ.get("NUM_WORKERS", "4"))
SHARED = os.environ.get("USE_SHARED_MEMORY", "1") == "1"
GROW = os.environ.get("MULTI_SCALE", "0") == "1"  # progressive resizing: image side grows every batch


class RandomImages(Dataset):
    def __init__(self, n=2048):
        self.n = n

    def __getitem__(self, idx):
        side = IMG + 32 * (idx // BATCH) if GROW else IMG
        img = np.random.rand(3, side, side).astype("float32")
        return img, np.array([idx % 10], dtype="int64")

    def __len__(self):
        return self.n


def main():
    print(f"paddle {paddle.__version__}, batch_size={BATCH}, num_workers={WORKERS}, image={IMG}x{IMG}")
    loader = DataLoader(RandomImages(), batch_size=BATCH, shuffle=not GROW, num_workers=WORKERS,
                        use_shared_memory=SHARED, drop_last=True)
    model = paddle.nn.Sequential(paddle.nn.Conv2D(3, 8, 3, stride=4), paddle.nn.ReLU(),
                                 paddle.nn.AdaptiveAvgPool2D(1), paddle.nn.Flatten(), paddle.nn.Linear(8, 10))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    t0 = time.time()
    for epoch in range(2):
        for step, (x, y) in enumerate(loader):
            loss = paddle.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            if step % 5 == 0 or GROW:
                print(f"epoch {epoch} step {step} loss {float(loss):.4f} ({time.time() - t0:.1f}s)")
            if step >= 20:
                break
    print("done")


if __name__ == "__main__":
    main()
