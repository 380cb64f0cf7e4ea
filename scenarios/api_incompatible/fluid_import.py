"""Static-graph training code written for Paddle 1.8 / 2.0."""
import numpy as np
import paddle
import paddle.fluid as fluid

paddle.enable_static()
image = fluid.data(name="image", shape=[None, 784], dtype="float32")
label = fluid.data(name="label", shape=[None, 1], dtype="int64")
hidden = fluid.layers.fc(input=image, size=128, act="relu")
prediction = fluid.layers.fc(input=hidden, size=10, act="softmax")
loss = fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))
fluid.optimizer.Adam(learning_rate=0.001).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
print(exe.run(feed={"image": np.random.rand(8, 784).astype("float32"),
                    "label": np.random.randint(0, 10, (8, 1)).astype("int64")}, fetch_list=[loss]))
