"""Paddle Inference deployment script."""
import argparse

import numpy as np
import paddle
import paddle.inference as paddle_infer

ap = argparse.ArgumentParser()
ap.add_argument("--model_file", default="inference/model.pdmodel")
ap.add_argument("--params_file", default="inference/model.pdiparams")
args = ap.parse_args()
print(f"paddle {paddle.__version__}: loading {args.model_file}")
config = paddle_infer.Config(args.model_file, args.params_file)
config.disable_gpu()
predictor = paddle_infer.create_predictor(config)
h = predictor.get_input_handle(predictor.get_input_names()[0])
h.reshape([2, 1, 28, 28])
h.copy_from_cpu(np.random.rand(2, 1, 28, 28).astype("float32"))
predictor.run()
out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
print("output", out.shape, out.argmax(1).tolist())
