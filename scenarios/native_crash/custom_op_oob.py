"""Custom C++ operator (JIT-compiled with paddle.utils.cpp_extension) with an out-of-bounds write."""
import paddle
from paddle.utils.cpp_extension import load

print(f"paddle {paddle.__version__}")
custom_ops = load(name="custom_relu_op", sources=["custom_relu.cc"], verbose=False)
x = paddle.randn([1024, 1024])
for i in range(20):
    y = custom_ops.custom_relu(x)
    print("iter", i, float(y.mean()))
