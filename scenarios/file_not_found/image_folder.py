"""Batch prediction over a folder of images."""
import argparse

from paddle.vision.datasets import ImageFolder

ap = argparse.ArgumentParser()
ap.add_argument("--images", default="./images")
args = ap.parse_args()
ds = ImageFolder(args.images)
print("images:", len(ds))
