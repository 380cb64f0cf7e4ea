"""Detection inference service using Paddle Inference."""
import argparse
import os

import numpy as np
import paddle.inference as paddle_infer

ap = argparse.ArgumentParser()
ap.add_argument("--model_dir", default="./inference")
args = ap.parse_args()
model_file = os.path.join(args.model_dir, "inference.pdmodel")
params_file = os.path.join(args.model_dir, "inference.pdiparams")
config = paddle_infer.Config(model_file, params_file)
config.disable_gpu()
config.set_cpu_math_library_num_threads(2)
predictor = paddle_infer.create_predictor(config)
inp = predictor.get_input_handle(predictor.get_input_names()[0])
inp.copy_from_cpu(np.random.rand(1, 3, 640, 640).astype("float32"))
predictor.run()
print(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu().shape)
