"""Fluid 1.8 image classifier fed by fluid.io.DataLoader with worker processes (shared memory)."""
import numpy as np
import paddle
import paddle.fluid as fluid
from paddle.fluid.io import Dataset


class RandomImages(Dataset):
    def __getitem__(self, idx):
        return np.random.rand(3, 224, 224).astype("float32"), np.array([idx % 10]).astype("int64")

    def __len__(self):
        return 512


print(f"paddle {paddle.__version__}", flush=True)
place = fluid.CPUPlace()
with fluid.dygraph.guard(place):
    net = fluid.dygraph.Linear(3 * 224 * 224, 10)
    opt = fluid.optimizer.SGD(learning_rate=1e-3, parameter_list=net.parameters())
    loader = fluid.io.DataLoader(RandomImages(), places=place, return_list=True, batch_size=64,
                                 num_workers=2, use_shared_memory=True)
    for step, (img, label) in enumerate(loader()):
        logits = net(fluid.layers.reshape(img, [img.shape[0], -1]))
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        print(f"step {step} loss {float(loss.numpy()[0]):.4f}", flush=True)
