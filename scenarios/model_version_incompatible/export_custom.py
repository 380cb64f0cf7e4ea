"""Export a model that uses a custom C++ op (built with paddle.utils.cpp_extension)."""
import paddle
from paddle.static import InputSpec
from paddle.utils.cpp_extension import load

ops = load(name="fast_gelu_op", sources=["custom_gelu.cc"])


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(16, 32)
        self.fc2 = paddle.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(ops.fast_gelu(self.fc1(x)))


net = Net()
net.eval()
paddle.jit.save(net, "inference/model", input_spec=[InputSpec([None, 16], "float32", "x")])
print("exported")
