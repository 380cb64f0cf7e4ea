"""Fluid (Paddle 1.x) inference service: load a saved inference model and predict a batch."""
import sys

import numpy as np
import paddle
import paddle.fluid as fluid

model_dir = sys.argv[1] if len(sys.argv) > 1 else "inference_model"
model_file = sys.argv[2] if len(sys.argv) > 2 else None
params_file = sys.argv[3] if len(sys.argv) > 3 else None
print(f"paddle {paddle.__version__}: loading inference model from {model_dir}", flush=True)
exe = fluid.Executor(fluid.CPUPlace())
program, feeds, fetches = fluid.io.load_inference_model(model_dir, exe, model_filename=model_file,
                                                        params_filename=params_file)
shape = [2] + [d if d > 0 else 1 for d in program.global_block().var(feeds[0]).shape[1:]]
out = exe.run(program, feed={feeds[0]: np.random.rand(*shape).astype("float32")}, fetch_list=fetches)
print("prediction", out[0].shape, flush=True)
