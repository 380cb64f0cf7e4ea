"""Feature engineering that feeds integer ids straight into a float layer."""
import numpy as np
import paddle

print("paddle", paddle.__version__)
ids = paddle.to_tensor(np.random.randint(0, 100, (16, 8)))
weight = paddle.randn([8, 4], dtype="float32")
print("ids", ids.dtype, ids.shape, "weight", weight.dtype, weight.shape)
scores = paddle.matmul(ids, weight)
print(scores.mean())
