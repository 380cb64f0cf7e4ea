"""PaddleOCR-style recognition training: reads the label list given on the command line."""
import argparse
import logging

import paddle

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] ppocr %(levelname)s: %(message)s")
logger = logging.getLogger("ppocr")
ap = argparse.ArgumentParser()
ap.add_argument("--label_list", default="train_list.txt")
args = ap.parse_args()
logger.info("paddle version %s", paddle.__version__)
logger.info("Initialize indexs of datasets:%s", [args.label_list])
with open(args.label_list, "rb") as f:
    lines = f.readlines()
logger.info("%d samples", len(lines))
