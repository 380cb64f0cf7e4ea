"""Fluid 1.x post-processing that calls into a native helper with a bad pointer (ctypes on NULL)."""
import ctypes

import numpy as np
import paddle
import paddle.fluid as fluid

print(f"paddle {paddle.__version__}")
with fluid.dygraph.guard(fluid.CPUPlace()):
    fc = fluid.dygraph.Linear(8, 2)
    out = fc(fluid.dygraph.to_variable(np.random.rand(4, 8).astype("float32")))
    print("forward ok:", out.shape)
print("decoding boxes with native helper ...")
ctypes.string_at(0)  # NULL dereference inside native code
print("unreachable")
