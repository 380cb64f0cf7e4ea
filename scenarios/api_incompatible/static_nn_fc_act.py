"""Static graph network using the old `act=` argument of fc."""
import paddle

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, 13], dtype="float32")
y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
hidden = paddle.static.nn.fc(x, size=64, act="relu")
pred = paddle.static.nn.fc(hidden, size=1)
loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
print("program built")
