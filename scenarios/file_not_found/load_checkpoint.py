"""Resume training from a checkpoint."""
import argparse

import paddle

ap = argparse.ArgumentParser()
ap.add_argument("--resume", default=None)
args = ap.parse_args()
model = paddle.nn.Sequential(paddle.nn.Linear(784, 120), paddle.nn.ReLU(), paddle.nn.Linear(120, 10))
opt = paddle.optimizer.Momentum(learning_rate=0.01, parameters=model.parameters())
if args.resume:
    print(f"resume from {args.resume}")
    state = paddle.load(args.resume)
    model.set_state_dict(state)
print("start training")
