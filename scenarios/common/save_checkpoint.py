"""Save a small checkpoint (state dict) like a training job does at the end of an epoch."""
import sys

import paddle

out = sys.argv[1] if len(sys.argv) > 1 else "output/best_model/model.pdparams"
width = int(sys.argv[2]) if len(sys.argv) > 2 else 120
paddle.seed(0)
net = paddle.nn.Sequential(paddle.nn.Linear(784, width), paddle.nn.ReLU(), paddle.nn.Linear(width, 10))
paddle.save(net.state_dict(), out)
print("saved", out)
