"""PaddleOCR tools/train.py-like entry: imports the data/augment modules first (cv2 inside)."""
import logging
import sys

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] ppocr %(levelname)s: %(message)s")
logger = logging.getLogger("ppocr")
logger.info("Architecture : {'model_type': 'rec', 'algorithm': 'SVTR_LCNet'}")
import paddle  # noqa: E402

logger.info("paddle version %s", paddle.__version__)
from ppocr_data import build_dataloader  # noqa: E402

build_dataloader()
