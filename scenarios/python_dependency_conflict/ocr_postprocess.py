"""PaddleOCR-style DB text detection post-processing (needs shapely and pyclipper)."""
import paddle

print(f"paddle {paddle.__version__}")
from db_postprocess import DBPostProcess  # noqa: E402

pred = paddle.nn.functional.sigmoid(paddle.randn([1, 1, 160, 160])).numpy()
print(DBPostProcess()(pred))
