"""tools/train.py of a toolkit-style repo: reads its JSON config and builds the optimizer."""
import json
import sys

import paddle

CONFIG = """{
  "Global": {"epoch_num": 10, "save_model_dir": "./output/rec"},
  "Optimizer": {"name": "Adam", "lr": {"name": "Cosine", "learning_rate": 0.001}}
}"""


def build_optimizer(cfg, parameters):
    opt_cfg = cfg["Optimizer"]
    lr = opt_cfg["lr"]["learning_rate"]
    return getattr(paddle.optimizer, opt_cfg["name"])(learning_rate=lr, beta1=opt_cfg["beta1"],
                                                      parameters=parameters)


def main():
    cfg = json.loads(CONFIG)
    print(f"[{__file__}] config loaded: {sorted(cfg)}", flush=True)
    for k, v in cfg["Global"].items():
        print(f"  Global.{k} : {v}")
    model = paddle.nn.Linear(8, 2)
    optimizer = build_optimizer(cfg, model.parameters())
    print(optimizer)


if __name__ == "__main__":
    sys.exit(main())
