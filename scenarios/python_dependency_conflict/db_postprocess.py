"""DB text-detection post-processing, as in PaddleOCR (unclip with pyclipper, area with shapely)."""
import numpy as np
import pyclipper
from shapely.geometry import Polygon


class DBPostProcess:
    def __init__(self, thresh=0.3, unclip_ratio=1.5):
        self.thresh = thresh
        self.unclip_ratio = unclip_ratio

    def unclip(self, box):
        poly = Polygon(box)
        distance = poly.area * self.unclip_ratio / poly.length
        offset = pyclipper.PyclipperOffset()
        offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        return np.array(offset.Execute(distance))

    def __call__(self, pred):
        ys, xs = np.nonzero(pred[0, 0] > self.thresh)
        if len(xs) == 0:
            return []
        box = [[xs.min(), ys.min()], [xs.max(), ys.min()], [xs.max(), ys.max()], [xs.min(), ys.max()]]
        return [self.unclip(box).tolist()]
