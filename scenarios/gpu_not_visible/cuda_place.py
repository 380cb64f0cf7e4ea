"""Explicit CUDAPlace, as older training scripts do."""
import numpy as np
import paddle

place = paddle.CUDAPlace(0)
print("running on", place)
x = paddle.to_tensor(np.ones([4, 4], dtype="float32"), place=place)
print(x.sum())
