"""Fine-tune from a pretrained checkpoint produced by a different model config."""
import logging
import sys

import paddle

log = logging.getLogger("ppcls")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppcls INFO: %(message)s"))
log.addHandler(_handler)
log.setLevel(logging.INFO)
log.propagate = False
log.info("paddle %s", paddle.__version__)
model = paddle.nn.Sequential(paddle.nn.Linear(784, 120), paddle.nn.ReLU(), paddle.nn.Linear(120, 10))
state = paddle.load("pretrained/model.pdparams")
log.info("loading pretrained params from pretrained/model.pdparams")
model.set_state_dict(state)
log.info("pretrained loaded, start fine-tuning")
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
for step in range(3):
    loss = model(paddle.randn([16, 784])).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    log.info("step %d loss %.5f", step, float(loss))
