"""Paddle Inference of the Fluid era (1.x): AnalysisConfig + create_paddle_predictor on a saved model."""
import sys

import numpy as np
import paddle
from paddle.fluid.core import AnalysisConfig, create_paddle_predictor

model_dir = sys.argv[1] if len(sys.argv) > 1 else "inference_model"
print(f"paddle {paddle.__version__}: AnalysisConfig({model_dir!r}{', ' + ', '.join(sys.argv[2:4]) if len(sys.argv) > 2 else ''})", flush=True)
config = AnalysisConfig(*sys.argv[2:4]) if len(sys.argv) > 2 else AnalysisConfig(model_dir)
config.disable_gpu()
config.switch_use_feed_fetch_ops(False)
predictor = create_paddle_predictor(config)
name = predictor.get_input_names()[0]
tensor = predictor.get_input_tensor(name)
tensor.copy_from_cpu(np.random.rand(2, 13).astype("float32"))
predictor.zero_copy_run()
out = predictor.get_output_tensor(predictor.get_output_names()[0]).copy_to_cpu()
print("prediction", out.shape, flush=True)
