"""Runs a convolution with the tensors created on CUDAPlace(0)."""
import numpy as np
import paddle

place = paddle.CUDAPlace(0)
x = paddle.to_tensor(np.random.rand(2, 3, 32, 32).astype("float32"), place=place)
conv = paddle.nn.Conv2D(3, 8, 3)
y = conv(x)
print("output", y.shape, y.place)
