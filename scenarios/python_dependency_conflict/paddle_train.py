"""Minimal training job."""
import paddle

print(f"paddle {paddle.__version__}")
net = paddle.nn.Linear(8, 1)
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
for step in range(3):
    loss = net(paddle.randn([4, 8])).pow(2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print("step", step, float(loss))
