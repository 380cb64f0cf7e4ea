"""OCR data pipeline: reads images with OpenCV before feeding Paddle."""
import cv2
import numpy as np
import paddle

print(f"paddle {paddle.__version__}, opencv {cv2.__version__}")
img = np.random.randint(0, 255, (64, 256, 3), dtype=np.uint8)
img = cv2.resize(img, (320, 48))
x = paddle.to_tensor(img.transpose(2, 0, 1)[None].astype("float32") / 255.0)
print(x.shape)
