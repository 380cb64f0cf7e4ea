"""Post-processing that calls into a native helper with a bad pointer (here: ctypes on NULL)."""
import ctypes

import numpy as np
import paddle

print(f"paddle {paddle.__version__}")
model = paddle.nn.Linear(8, 2)
out = model(paddle.to_tensor(np.random.rand(4, 8).astype("float32")))
print("forward ok:", out.shape)
print("decoding boxes with native helper ...")
ctypes.string_at(0)  # NULL dereference inside native code
print("unreachable")
