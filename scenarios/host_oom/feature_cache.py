"""Pre-compute a feature bank for retrieval: allocates one tensor for the whole gallery."""
import logging

import paddle

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(message)s")
log = logging.getLogger("ppcls")
num_images, dim = 16_000_000, 2048
log.info("paddle %s, device %s", paddle.__version__, paddle.get_device())
log.info("building feature bank for %d gallery images, dim=%d", num_images, dim)
bank = paddle.zeros([num_images, dim, 64], dtype="float32")
log.info("feature bank ready: %s", bank.shape)
