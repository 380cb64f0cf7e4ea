"""Dygraph code from the Paddle 1.x era."""
import numpy as np
import paddle

with paddle.fluid.dygraph.guard():
    linear = paddle.nn.Linear(10, 2)
    x = paddle.to_tensor(np.random.rand(4, 10).astype("float32"))
    print(linear(x))
