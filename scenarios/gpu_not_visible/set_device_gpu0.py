"""Detection-style training start on gpu:0."""
import logging

import paddle

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] ppdet.engine INFO: %(message)s")
log = logging.getLogger("ppdet")
log.info("Paddle %s, CUDA compiled: %s", paddle.__version__, paddle.is_compiled_with_cuda())
paddle.set_device("gpu:0")
log.info("device set to %s", paddle.get_device())
model = paddle.nn.Conv2D(3, 16, 3)
print(model(paddle.randn([2, 3, 64, 64])).shape)
