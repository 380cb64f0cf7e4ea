"""Fluid 1.x dygraph training that (by mistake) keeps every activation alive; the container has a memory cap."""
import numpy as np
import paddle
import paddle.fluid as fluid

print(f"paddle {paddle.__version__}")
with fluid.dygraph.guard(fluid.CPUPlace()):
    fc1, fc2 = fluid.dygraph.Linear(256, 2048, act="relu"), fluid.dygraph.Linear(2048, 10)
    opt = fluid.optimizer.SGD(learning_rate=0.01, parameter_list=fc1.parameters() + fc2.parameters())
    kept = []
    for step in range(10_000):
        x = fluid.dygraph.to_variable(np.random.rand(512, 256).astype("float32"))
        h = fc1(x)
        loss = fluid.layers.reduce_mean(fc2(h))
        loss.backward()
        opt.minimize(loss)
        fc1.clear_gradients()
        fc2.clear_gradients()
        kept.append(fluid.layers.expand(h, [8, 1]))  # feature maps kept for "analysis", never freed (32 MB each)
        if step % 10 == 0:
            print(f"step {step}: loss {float(loss.numpy()):.5f} kept {len(kept)} activations", flush=True)
