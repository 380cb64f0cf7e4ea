"""Inference service: loads the exported model (the custom op library is not loaded here)."""
import glob

import numpy as np
import paddle
import paddle.inference as paddle_infer

print(f"paddle {paddle.__version__}")
model_file = (glob.glob("inference/model.json") or glob.glob("inference/model.pdmodel"))[0]
config = paddle_infer.Config(model_file, "inference/model.pdiparams")
config.disable_gpu()
predictor = paddle_infer.create_predictor(config)
h = predictor.get_input_handle(predictor.get_input_names()[0])
h.reshape([2, 16])
h.copy_from_cpu(np.random.rand(2, 16).astype("float32"))
predictor.run()
print(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu())
