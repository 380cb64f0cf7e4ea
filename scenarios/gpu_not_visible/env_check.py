"""Container start-up environment report (as many training images print before the job)."""
import paddle

print("========== environment ==========")
print("paddle:", paddle.__version__, "commit:", paddle.version.commit[:10])
print("compiled with cuda:", paddle.is_compiled_with_cuda(), "cuda:", paddle.version.cuda(), "cudnn (build):", paddle.version.cudnn())
print("cudnn (runtime):", paddle.device.get_cudnn_version())
print("visible gpus:", paddle.device.cuda.device_count())
print("=================================")
