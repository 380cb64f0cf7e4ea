"""A Fluid (Paddle 1.x) static-graph training script: a small MLP on random data."""
import sys

import numpy as np
import paddle
import paddle.fluid as fluid

use_gpu = "--use_gpu" in sys.argv
feat = int(sys.argv[sys.argv.index("--feat") + 1]) if "--feat" in sys.argv else 13
print(f"paddle {paddle.__version__}, use_gpu={use_gpu}", flush=True)
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name="x", shape=[None, 13], dtype="float32")
    y = fluid.data(name="y", shape=[None, 1], dtype="float32")
    hidden = fluid.layers.fc(input=x, size=32, act="relu")
    pred = fluid.layers.fc(input=hidden, size=1)
    loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
    fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
place = fluid.CUDAPlace(0) if use_gpu else fluid.CPUPlace()
exe = fluid.Executor(place)
exe.run(startup)
rng = np.random.RandomState(0)
for epoch in range(2):
    for step in range(5):
        xb = rng.rand(16, feat).astype("float32")
        yb = rng.rand(16, 1).astype("float32")
        (cost,) = exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])
        print(f"Epoch {epoch}, Step {step}, Cost {float(cost[0]):.5f}", flush=True)
fluid.io.save_inference_model("inference_model", ["x"], [pred], exe, main_program=main)
print("saved inference_model", flush=True)
