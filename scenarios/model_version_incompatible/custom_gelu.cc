#include <cmath>
#include <vector>
#include "paddle/extension.h"

std::vector<paddle::Tensor> FastGeluForward(const paddle::Tensor& x) {
  auto out = paddle::empty_like(x);
  const float* in = x.data<float>();
  float* o = out.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    o[i] = 0.5f * in[i] * (1.f + std::tanh(0.7978845608f * (in[i] + 0.044715f * in[i] * in[i] * in[i])));
  }
  return {out};
}

PD_BUILD_OP(fast_gelu).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(FastGeluForward));
