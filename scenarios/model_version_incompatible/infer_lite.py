"""Paddle-Lite deployment script: run an optimized (.nb) model with MobileConfig, as on a device."""
import sys

import numpy as np
from paddlelite.lite import MobileConfig, create_paddle_predictor

model = sys.argv[1] if len(sys.argv) > 1 else "models/lenet.nb"
print(f"paddle-lite: loading {model}", flush=True)
config = MobileConfig()
config.set_model_from_file(model)
predictor = create_paddle_predictor(config)
inp = predictor.get_input(0)
inp.from_numpy(np.random.rand(1, 1, 28, 28).astype("float32"))
predictor.run()
out = predictor.get_output(0).numpy()
print("output", out.shape, out.reshape(1, -1).argmax(1).tolist())
