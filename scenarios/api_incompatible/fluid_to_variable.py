"""Dygraph training helper from Paddle 1.8."""
import numpy as np
import paddle
from paddle.fluid.dygraph import to_variable

data = np.random.rand(4, 8).astype("float32")
x = to_variable(data)
print(paddle.nn.Linear(8, 2)(x))
