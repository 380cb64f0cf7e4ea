"""Fine-tuning job: tokenize a text-classification set with PaddleNLP, then train."""
import paddle

print(f"paddle {paddle.__version__}")
from paddlenlp.transformers import AutoTokenizer  # noqa: E402

tokenizer = AutoTokenizer.from_pretrained("bert-base-chinese")
print(tokenizer("飞桨 PaddlePaddle"))
