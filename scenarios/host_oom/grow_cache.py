"""Training loop that (by mistake) keeps every activation alive; the container has a memory cap."""
import paddle

print(f"paddle {paddle.__version__}")
net = paddle.nn.Sequential(paddle.nn.Linear(256, 2048), paddle.nn.ReLU(), paddle.nn.Linear(2048, 10))
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
kept = []
for step in range(10_000):
    x = paddle.randn([512, 256])
    h = net[1](net[0](x))
    loss = net[2](h).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    kept.append(paddle.tile(h, [8, 1]))  # feature maps kept for "analysis" - never freed (32 MB each)
    if step % 10 == 0:
        print(f"step {step}: loss {float(loss):.5f} kept {len(kept)} activations")
