"""Post-processing through a native helper library that frees a buffer twice (simulated with ctypes/libc)."""
import ctypes

import paddle

print(f"paddle {paddle.__version__}")
logits = paddle.nn.Linear(16, 4)(paddle.randn([8, 16]))
print("logits", logits.shape)
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
buf = libc.malloc(64)
print("nms buffer allocated")
libc.free(buf)
libc.free(buf)  # double free
print("unreachable")
