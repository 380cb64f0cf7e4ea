"""OCR service start-up: PaddleOCR with its default Chinese models (fetched on first use when not present)."""
import paddle

print(f"paddle {paddle.__version__}")
from paddleocr import PaddleOCR  # noqa: E402

ocr = PaddleOCR(use_angle_cls=True, lang="ch", show_log=False)
print(ocr.ocr("doc.jpg", cls=True))
