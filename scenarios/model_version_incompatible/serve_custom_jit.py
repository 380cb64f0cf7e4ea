"""Loads the exported model with paddle.jit.load (the custom op library is not loaded here)."""
import paddle

print(f"paddle {paddle.__version__}")
model = paddle.jit.load("inference/model")
print(model(paddle.randn([2, 16])))
