"""High-level API training (paddle.Model) with a save at the end, into ./output (small volume)."""
import numpy as np
import paddle
from paddle.io import Dataset


class Random(Dataset):
    def __getitem__(self, i):
        return np.random.rand(1024).astype("float32"), np.array([i % 10], dtype="int64")

    def __len__(self):
        return 64


net = paddle.nn.Sequential(paddle.nn.Linear(1024, 1024), paddle.nn.ReLU(), paddle.nn.Linear(1024, 10))
model = paddle.Model(net)
model.prepare(paddle.optimizer.Adam(parameters=net.parameters()), paddle.nn.CrossEntropyLoss())
model.fit(Random(), epochs=1, batch_size=16, verbose=2)
model.save("output/final")
print("saved output/final")
