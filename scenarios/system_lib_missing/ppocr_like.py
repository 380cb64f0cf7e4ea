"""PaddleOCR tools/train.py-like entry: imports the data/augment modules first (cv2 inside)."""
import logging
import sys

logger = logging.getLogger("ppocr")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppocr %(levelname)s: %(message)s"))
logger.addHandler(_handler)
logger.setLevel(logging.INFO)
logger.propagate = False
logger.info("Architecture : {'model_type': 'rec', 'algorithm': 'SVTR_LCNet'}")
import paddle  # noqa: E402

logger.info("paddle version %s", paddle.__version__)
from ppocr_data import build_dataloader  # noqa: E402

build_dataloader()
