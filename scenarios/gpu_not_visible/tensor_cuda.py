"""Moves a batch to the GPU with Tensor.cuda()."""
import paddle

paddle.seed(42)
model = paddle.nn.Linear(16, 4)
batch = paddle.randn([32, 16])
print("batch on", batch.place)
batch = batch.cuda()
print(model(batch).mean())
