"""A run full of scary-looking but harmless warnings; training finishes fine."""
import warnings

import numpy as np
import paddle

warnings.simplefilter("default")
print(f"paddle {paddle.__version__}")
a = np.array([1.0, 0.0, -1.0])
print("log of probs:", np.log(a))
print("normalised:", a / a.sum() if a.sum() else a / 0)
x = paddle.to_tensor(np.random.rand(4, 3).astype("float64"))
w = paddle.create_parameter([3, 2], dtype="float32")
warnings.warn("The `data_format` argument of the old resize op is deprecated and will be removed "
              "in a future release.", DeprecationWarning)
net = paddle.nn.Linear(3, 2)
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
for step in range(3):
    loss = net(x.astype("float32")).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    print(f"step {step} loss {float(loss):.4f}")
print("training finished")
