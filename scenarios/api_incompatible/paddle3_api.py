"""Code written against Paddle 3.x run in an older 2.6 image."""
import paddle

print(f"paddle {paddle.__version__}")
x = paddle.randn([4, 8], dtype="float32")
w = paddle.ones([8], dtype="float32")
y = paddle.nn.functional.rms_norm(x, w, epsilon=1e-6)
print(y.shape)
