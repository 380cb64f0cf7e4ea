import paddle

print("Paddle version:", paddle.__version__)
print("compiled with CUDA:", paddle.is_compiled_with_cuda())
paddle.utils.run_check()
