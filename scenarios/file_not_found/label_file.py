"""PaddleOCR-style recognition training: reads the label list given on the command line."""
import argparse
import logging
import sys

import paddle

logger = logging.getLogger("ppocr")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppocr %(levelname)s: %(message)s"))
logger.addHandler(_handler)
logger.setLevel(logging.INFO)
logger.propagate = False
ap = argparse.ArgumentParser()
ap.add_argument("--label_list", default="train_list.txt")
args = ap.parse_args()
logger.info("paddle version %s", paddle.__version__)
logger.info("Initialize indexs of datasets:%s", [args.label_list])
with open(args.label_list, "rb") as f:
    lines = f.readlines()
logger.info("%d samples", len(lines))
