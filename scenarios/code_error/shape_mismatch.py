"""A small CNN whose classifier head was sized for 32x32 inputs, trained on 28x28 images."""
import numpy as np
import paddle
import paddle.nn as nn

print(f"paddle {paddle.__version__}, device {paddle.get_device()}")


class Net(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 6, 5)
        self.conv2 = nn.Conv2D(6, 16, 5)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, num_classes)

    def forward(self, x):
        x = self.pool(nn.functional.relu(self.conv1(x)))
        x = self.pool(nn.functional.relu(self.conv2(x)))
        x = paddle.flatten(x, 1)
        return self.fc2(nn.functional.relu(self.fc1(x)))


model = Net()
opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
images = paddle.to_tensor(np.random.rand(64, 1, 28, 28).astype("float32"))
labels = paddle.to_tensor(np.random.randint(0, 10, (64, 1)).astype("int64"))
print("start training: 64 samples, batch 32")
for epoch in range(2):
    for step in range(2):
        x, y = images[step * 32:(step + 1) * 32], labels[step * 32:(step + 1) * 32]
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        print(f"epoch {epoch} step {step} loss {float(loss):.4f}")
