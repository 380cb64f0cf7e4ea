"""Training entry point that pins the job to the GPU."""
import paddle

print(f"paddle version: {paddle.__version__}")
paddle.set_device("gpu")
model = paddle.vision.models.resnet18(num_classes=10)
x = paddle.randn([8, 3, 224, 224])
print(model(x).shape)
