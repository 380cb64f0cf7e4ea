"""Paddle Inference service configured for GPU (model exported beforehand)."""
import glob

import numpy as np
import paddle.inference as paddle_infer

model_file = (glob.glob("inference/model.json") or glob.glob("inference/model.pdmodel"))[0]
config = paddle_infer.Config(model_file, "inference/model.pdiparams")
config.enable_use_gpu(500, 0)
config.switch_ir_optim(True)
predictor = paddle_infer.create_predictor(config)
h = predictor.get_input_handle(predictor.get_input_names()[0])
h.reshape([4, 1, 28, 28])
h.copy_from_cpu(np.random.rand(4, 1, 28, 28).astype("float32"))
predictor.run()
out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
print("predictions:", out.argmax(1).tolist())
