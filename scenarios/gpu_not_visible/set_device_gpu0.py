"""Detection-style training start on gpu:0."""
import logging
import sys

import paddle

log = logging.getLogger("ppdet")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppdet.engine INFO: %(message)s"))
log.addHandler(_handler)
log.setLevel(logging.INFO)
log.propagate = False
log.info("Paddle %s, CUDA compiled: %s", paddle.__version__, paddle.is_compiled_with_cuda())
paddle.set_device("gpu:0")
log.info("device set to %s", paddle.get_device())
model = paddle.nn.Conv2D(3, 16, 3)
print(model(paddle.randn([2, 3, 64, 64])).shape)
