import cv2
import numpy as np


def build_dataloader():
    img = np.zeros((32, 100, 3), dtype=np.uint8)
    print("resized", cv2.resize(img, (320, 48)).shape)
