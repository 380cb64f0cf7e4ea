"""Fine-tuning a 10-class head on a label file that holds 12 classes."""
import logging
import sys

import numpy as np
import paddle
import paddle.nn as nn

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("train")
paddle.seed(3)
np.random.seed(3)
NUM_CLASSES = 10
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
features = np.random.rand(256, 32).astype("float32")
targets = np.random.randint(0, 12, (256, 1)).astype("int64")
targets[:64] = np.random.randint(0, NUM_CLASSES, (64, 1))
log.info("num_classes: %d, samples: %d", NUM_CLASSES, len(features))
for step in range(8):
    x = paddle.to_tensor(features[step * 32:(step + 1) * 32])
    y = paddle.to_tensor(targets[step * 32:(step + 1) * 32])
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    log.info("step %d, loss %.5f", step, float(loss))
