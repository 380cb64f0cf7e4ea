#include <vector>
#include "paddle/extension.h"

// BUG: writes far beyond the output buffer (wrong stride) -> heap corruption / SIGSEGV
std::vector<paddle::Tensor> CustomReluForward(const paddle::Tensor& x) {
  auto out = paddle::empty_like(x);
  const float* in = x.data<float>();
  float* o = out.data<float>();
  int64_t n = x.numel();
  for (int64_t i = 0; i < n; ++i) {
    o[i * 4096] = in[i] > 0.f ? in[i] : 0.f;
  }
  return {out};
}

PD_BUILD_OP(custom_relu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(CustomReluForward));
