"""Multi-card static-graph training as written for Paddle 2.0-2.4."""
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, 13], dtype="float32")
y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
pred = paddle.static.nn.fc(x, size=1)
loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(paddle.static.default_startup_program())
compiled = paddle.static.CompiledProgram(paddle.static.default_main_program()).with_data_parallel(
    loss_name=loss.name)
for step in range(3):
    out = exe.run(compiled, feed={"x": np.random.rand(16, 13).astype("float32"),
                                  "y": np.random.rand(16, 1).astype("float32")}, fetch_list=[loss])
    print("step", step, out[0])
