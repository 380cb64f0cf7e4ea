import numpy as np


class DBPostProcess:
    def __call__(self, pred, thresh=0.3):
        bitmap = pred[0, 0] > thresh
        return int(np.sum(bitmap))
