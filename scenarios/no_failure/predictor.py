"""Paddle Inference: create_predictor on an exported model and run a few batches."""
import os
import time

import numpy as np
import paddle
import paddle.inference as paddle_infer

print(f"paddle {paddle.__version__}")
import glob  # noqa: E402

model_file = glob.glob("inference/model.json") or glob.glob("inference/model.pdmodel")
config = paddle_infer.Config(model_file[0], "inference/model.pdiparams")
config.disable_gpu()
config.set_cpu_math_library_num_threads(2)
predictor = paddle_infer.create_predictor(config)
name = predictor.get_input_names()[0]
batch = int(os.environ.get("BATCH_SIZE", "8"))
for i in range(5):
    t0 = time.time()
    h = predictor.get_input_handle(name)
    h.reshape([batch, 1, 28, 28])
    h.copy_from_cpu(np.random.rand(batch, 1, 28, 28).astype("float32"))
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    print(f"batch {i}: output {out.shape}, argmax {out.argmax(1).tolist()[:8]}, {1000 * (time.time() - t0):.1f} ms")
print("inference done")
