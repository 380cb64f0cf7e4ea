"""Export the trained model for inference into ./output/inference (a small volume)."""
import paddle
from paddle.static import InputSpec

print(f"paddle {paddle.__version__}")
model = paddle.nn.Sequential(paddle.nn.Linear(1024, 1024), paddle.nn.ReLU(), paddle.nn.Linear(1024, 10))
model.eval()
paddle.jit.save(model, "output/inference/model", input_spec=[InputSpec([None, 1024], "float32", "x")])
print("export finished: output/inference/model")
