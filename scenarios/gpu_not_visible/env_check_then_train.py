"""Start-up environment report, then training on the GPU."""
import paddle

print("paddle:", paddle.__version__, "cuda:", paddle.version.cuda(), "cudnn:", paddle.version.cudnn())
print("cudnn (runtime):", paddle.device.get_cudnn_version())
print("visible gpus:", paddle.device.cuda.device_count())
paddle.set_device("gpu")
model = paddle.nn.Conv2D(3, 16, 3)
print(model(paddle.randn([4, 3, 64, 64])).shape)
