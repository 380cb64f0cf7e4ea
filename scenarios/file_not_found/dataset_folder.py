"""Classification training on an image folder dataset."""
import argparse

import paddle
from paddle.vision.datasets import DatasetFolder

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="./data/train")
args = ap.parse_args()
print(f"paddle {paddle.__version__}, data={args.data}")
train_ds = DatasetFolder(args.data)
print("train samples:", len(train_ds))
