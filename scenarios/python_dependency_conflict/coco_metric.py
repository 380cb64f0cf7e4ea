import logging

logger = logging.getLogger(__name__)


class COCOMetric:
    def __init__(self, anno_file):
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
        self.coco = COCO(anno_file)
        self.evaluator = COCOeval

    def accumulate(self):
        logger.info("accumulate")
