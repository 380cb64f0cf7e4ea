"""Text-recognition inference: loads the exported model with paddle.jit.load."""
import argparse
import os

import paddle

ap = argparse.ArgumentParser()
ap.add_argument("--model_dir", default="./inference")
args = ap.parse_args()
print(f"[INFO] paddle {paddle.__version__}; loading model from {args.model_dir}")
model = paddle.jit.load(os.path.join(args.model_dir, "model"))
model.eval()
print(model(paddle.randn([1, 1, 28, 28])))
