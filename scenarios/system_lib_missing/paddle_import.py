"""Any Paddle job: the failure is at `import paddle`."""
import paddle

print(f"paddle {paddle.__version__}")
print(paddle.randn([2, 2]))
