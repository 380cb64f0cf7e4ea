"""PaddleDetection-style COCO evaluation: the metric module needs pycocotools."""
import logging

import paddle

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] ppdet.engine INFO: %(message)s")
logging.info("paddle %s", paddle.__version__)
logging.info("Load weights output/ppyoloe/best_model.pdparams")
from coco_metric import COCOMetric  # noqa: E402

COCOMetric("annotations/instances_val2017.json").accumulate()
