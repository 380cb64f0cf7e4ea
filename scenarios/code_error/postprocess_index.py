"""Inference script whose post-processing assumes every image has at least one detection."""
import numpy as np
import paddle


def postprocess(scores, threshold=0.99):
    keep = [i for i, s in enumerate(scores) if s > threshold]
    boxes = [[10 * i, 10 * i, 10 * i + 32, 10 * i + 32] for i in keep]
    return boxes[0], scores[keep[0]]


paddle.seed(1)
model = paddle.nn.Sequential(paddle.nn.Linear(16, 4), paddle.nn.Sigmoid())
model.eval()
for n, name in enumerate(["demo/0001.jpg", "demo/0002.jpg", "demo/0003.jpg"]):
    feats = paddle.to_tensor(np.random.rand(1, 16).astype("float32") * (3 - 1.4 * n))
    scores = model(feats).numpy()[0].tolist()
    box, score = postprocess(scores, threshold=0.6)
    print(f"{name}: box {box} score {score:.3f}")
