// Helpers shared by the fused optimizer updates (see fused.h).
#include "optim/fused.h"

#include "ember/creation.h"

namespace ember::optim::detail {

void check_param(const char* op, const Tensor& param) {
  EMBER_CHECK(param.dtype() == kFloat32 || param.dtype() == kFloat64, op,
              "parameters must be float32 or float64, got ", dtype_name(param.dtype()));
  EMBER_CHECK(param.is_contiguous(), op, "parameters must be contiguous (got strides ",
              param.strides(), " for sizes ", param.sizes(), ")");
}

Tensor dense_grad(const char* op, const Tensor& param) {
  const Tensor& g = param.grad();
  EMBER_CHECK(g.sizes() == param.sizes(), op, "gradient has shape ", g.sizes(),
              " but its parameter has shape ", param.sizes());
  Tensor out = g.dtype() == param.dtype() ? g : g.to(param.dtype());
  return out.is_contiguous() ? out : out.contiguous();
}

Tensor zeros_like_param(const Tensor& param) {
  return zeros(param.sizes(), {.dtype = param.dtype(), .device = param.device()});
}

double increment_step(Tensor& step) {
  EMBER_CHECK(step.numel() == 1 && step.dtype() == kFloat32, "optim",
              "state 'step' must be a one-element float32 tensor, got ", dtype_name(step.dtype()),
              " with ", step.numel(), " elements");
  float* s = step.data_ptr<float>();
  *s += 1.0f;  // float32 arithmetic, as PyTorch's `step_t += 1`
  step.impl()->storage()->bump_version();
  return *s;
}

void mark_updated(const Tensor& param) { param.impl()->storage()->bump_version(); }

}  // namespace ember::optim::detail

namespace ember::optim::detail {

void check_state(const char* op, const Tensor& buf, const Tensor& param, const char* key) {
  EMBER_CHECK(buf.dtype() == param.dtype() && buf.sizes() == param.sizes() && buf.is_contiguous(),
              op, "state '", key, "' must be a contiguous ", dtype_name(param.dtype()),
              " tensor of shape ", param.sizes(), ", got ", dtype_name(buf.dtype()), " of shape ",
              buf.sizes());
}

}  // namespace ember::optim::detail
