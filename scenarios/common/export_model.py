"""Train nothing, just export a small LeNet-style classifier for inference (paddle.jit.save)."""
import sys

import paddle
from paddle.static import InputSpec

out = sys.argv[1] if len(sys.argv) > 1 else "inference/model"
width = int(sys.argv[2]) if len(sys.argv) > 2 else 120
paddle.seed(0)
if len(sys.argv) > 3 and sys.argv[3] == "linear":  # a different, much smaller architecture
    net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 10))
else:
    net = paddle.nn.Sequential(
        paddle.nn.Conv2D(1, 6, 3, stride=1, padding=1), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2, 2),
        paddle.nn.Conv2D(6, 16, 5, stride=1, padding=0), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2, 2),
        paddle.nn.Flatten(), paddle.nn.Linear(400, width), paddle.nn.Linear(width, 10))
net.eval()
paddle.jit.save(net, out, input_spec=[InputSpec([None, 1, 28, 28], "float32", "x")])
print("exported", out, paddle.__version__)
