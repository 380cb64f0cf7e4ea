"""Training that saves a checkpoint each epoch into ./output (a small, nearly full volume)."""
import os

import paddle

print(f"paddle {paddle.__version__}")
os.makedirs("output", exist_ok=True)
model = paddle.nn.Sequential(paddle.nn.Linear(1024, 1024), paddle.nn.ReLU(), paddle.nn.Linear(1024, 10))
opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
for epoch in range(3):
    loss = model(paddle.randn([32, 1024])).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print(f"epoch {epoch}: loss {float(loss):.5f}")
    paddle.save(model.state_dict(), f"output/epoch_{epoch}.pdparams")
    paddle.save(opt.state_dict(), f"output/epoch_{epoch}.pdopt")
    print(f"saved checkpoint output/epoch_{epoch}")
