"""A Paddle 2.x dynamic-graph training script (paddle.nn, paddle.to_tensor, paddle.optimizer)."""
import numpy as np
import paddle

print(f"paddle {paddle.__version__}", flush=True)
model = paddle.nn.Sequential(paddle.nn.Linear(13, 32), paddle.nn.ReLU(), paddle.nn.Linear(32, 1))
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
for step in range(5):
    x = paddle.to_tensor(np.random.rand(16, 13).astype("float32"))
    loss = paddle.mean(model(x) ** 2)
    loss.backward()
    opt.step()
    opt.clear_grad()
    print(f"step {step} loss {float(loss):.4f}", flush=True)
