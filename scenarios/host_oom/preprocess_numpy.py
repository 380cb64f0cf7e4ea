"""Dataset preparation that stacks every decoded image into one numpy array before training."""
import numpy as np
import paddle

print(f"paddle {paddle.__version__}")
num, size = 250_000, 512
print(f"decoding {num} images at {size}x{size} into memory ...")
images = np.zeros((num, 3, size, size), dtype=np.float32)
print("stacked", images.shape)
