"""Training with a learning rate far too large; the job's own check stops it when the loss is NaN."""
import math

import numpy as np
import paddle

paddle.seed(0)
x = paddle.to_tensor(np.random.rand(128, 16).astype("float32") * 100)
y = paddle.to_tensor(np.random.rand(128, 1).astype("float32"))
model = paddle.nn.Linear(16, 1)
opt = paddle.optimizer.SGD(learning_rate=10.0, parameters=model.parameters())
for step in range(50):
    loss = paddle.nn.functional.mse_loss(model(x), y)
    value = float(loss)
    print(f"step {step:3d}  loss {value:.6e}")
    assert not math.isnan(value) and not math.isinf(value), f"loss is {value} at step {step}, stop training"
    loss.backward()
    opt.step()
    opt.clear_grad()
