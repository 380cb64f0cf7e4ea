"""Optimizer set up with the 1.x keyword parameter_list."""
import paddle

print(f"paddle {paddle.__version__}")
model = paddle.nn.Sequential(paddle.nn.Linear(64, 32), paddle.nn.ReLU(), paddle.nn.Linear(32, 2))
optimizer = paddle.optimizer.Adam(learning_rate=1e-3, parameter_list=model.parameters())
for step in range(3):
    loss = model(paddle.randn([8, 64])).mean()
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    print("step", step, float(loss))
