"""Evaluation script that loads the exported model with paddle.jit.load."""
import sys

import paddle

path = sys.argv[1] if len(sys.argv) > 1 else "inference/model"
print(f"paddle {paddle.__version__}: paddle.jit.load({path!r})")
model = paddle.jit.load(path)
model.eval()
out = model(paddle.randn([2, 1, 28, 28]))
print("output", out.shape)
