"""Training with VisualDL logging."""
import paddle
from visualdl import LogWriter

print(f"paddle {paddle.__version__}")
with LogWriter(logdir="./log/vdl") as writer:
    net = paddle.nn.Linear(8, 1)
    for step in range(5):
        loss = net(paddle.randn([4, 8])).mean()
        writer.add_scalar("train/loss", float(loss), step)
print("done")
