"""Fluid classifier with a multi-process DataLoader (from_generator, use_multiprocess=True)."""
import sys

import numpy as np
import paddle
import paddle.fluid as fluid

classes = int(sys.argv[sys.argv.index("--classes") + 1]) if "--classes" in sys.argv else 10
label_max = int(sys.argv[sys.argv.index("--label_max") + 1]) if "--label_max" in sys.argv else classes
multiprocess = "--multiprocess" in sys.argv
print(f"paddle {paddle.__version__}: {classes} classes, labels < {label_max}, use_multiprocess={multiprocess}", flush=True)


def reader():
    rng = np.random.RandomState(0)
    for _ in range(20):
        yield (rng.rand(32, 3, 64, 64).astype("float32"),
               rng.randint(0, label_max, size=(32, 1)).astype("int64"))


main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    img = fluid.data(name="img", shape=[None, 3, 64, 64], dtype="float32")
    label = fluid.data(name="label", shape=[None, 1], dtype="int64")
    loader = fluid.io.DataLoader.from_generator(feed_list=[img, label], capacity=8,
                                                 use_multiprocess=multiprocess)
    conv = fluid.layers.conv2d(img, num_filters=8, filter_size=3, act="relu")
    logits = fluid.layers.fc(fluid.layers.pool2d(conv, pool_size=4, pool_stride=4), size=classes)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
    fluid.optimizer.Adam(learning_rate=1e-3).minimize(loss)
loader.set_batch_generator(reader, places=fluid.CPUPlace())
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
for step, data in enumerate(loader()):
    (cost,) = exe.run(main, feed=data, fetch_list=[loss])
    if step % 5 == 0:
        print(f"step {step} loss {float(cost[0]):.4f}", flush=True)
print("done", flush=True)
