"""Paddle 2.x static inference: load a model directory saved by an older Fluid service."""
import sys

import numpy as np
import paddle

paddle.enable_static()
model_dir = sys.argv[1] if len(sys.argv) > 1 else "inference_model"
print(f"paddle {paddle.__version__}: loading {model_dir}", flush=True)
exe = paddle.static.Executor(paddle.CPUPlace())
program, feeds, fetches = paddle.static.load_inference_model(model_dir, exe)
out = exe.run(program, feed={feeds[0]: np.random.rand(2, 13).astype("float32")}, fetch_list=fetches)
print("prediction", out[0].shape, flush=True)
