"""Pre-compute a feature bank for retrieval: allocates one tensor for the whole gallery."""
import logging
import sys

import paddle

log = logging.getLogger("ppcls")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] %(levelname)s %(message)s"))
log.addHandler(_handler)
log.setLevel(logging.INFO)
log.propagate = False
num_images, dim = 16_000_000, 2048
log.info("paddle %s, device %s", paddle.__version__, paddle.get_device())
log.info("building feature bank for %d gallery images, dim=%d", num_images, dim)
bank = paddle.zeros([num_images, dim, 64], dtype="float32")
log.info("feature bank ready: %s", bank.shape)
