"""High-level API: paddle.Model.fit with its progress bar."""
import numpy as np
import paddle
from paddle.io import Dataset
from paddle.vision.models import LeNet


class RandomMNIST(Dataset):
    def __init__(self, n):
        self.x = np.random.rand(n, 1, 28, 28).astype("float32")
        self.y = np.random.randint(0, 10, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


paddle.seed(7)
model = paddle.Model(LeNet())
model.prepare(paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model.fit(RandomMNIST(1024), RandomMNIST(256), epochs=2, batch_size=64, verbose=1, log_freq=4)
print(model.evaluate(RandomMNIST(256), batch_size=64, verbose=1))
model.save("output/lenet")
