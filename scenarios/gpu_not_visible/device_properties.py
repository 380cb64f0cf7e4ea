"""Prints the GPU properties before sizing the batch to the GPU memory."""
import paddle

props = paddle.device.cuda.get_device_properties(0)
print(props)
batch_size = max(1, props.total_memory // (512 * 1024 * 1024))
print("batch_size", batch_size)
