import paddle

n = paddle.device.cuda.device_count()
print(f"visible GPUs: {n}")
paddle.set_device("gpu")
print(paddle.get_device())
