"""A native library aborts (assert / std::terminate) during training."""
import os

import paddle

print(f"paddle {paddle.__version__}")
net = paddle.nn.Linear(4, 4)
for step in range(3):
    loss = net(paddle.randn([2, 4])).mean()
    print(f"step {step} loss {float(loss):.4f}")
os.abort()
