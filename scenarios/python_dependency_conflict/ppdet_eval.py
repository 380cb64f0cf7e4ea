"""PaddleDetection-style COCO evaluation: the metric module needs pycocotools."""
import logging
import sys

import paddle

logger = logging.getLogger("ppdet")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppdet.engine INFO: %(message)s"))
logger.addHandler(_handler)
logger.setLevel(logging.INFO)
logger.propagate = False
logger.info("paddle %s", paddle.__version__)
logger.info("Load weights output/ppyoloe/best_model.pdparams")
from coco_metric import COCOMetric  # noqa: E402

COCOMetric("annotations/instances_val2017.json").accumulate()
