// The host side of the CUDA batch norm: the kCUDA backend's batch_norm_stats, batch_norm and
// batch_norm_backward entries. Each plans its passes (batch_norm_plan.cpp, tested in every build
// with the emulated kernels) and queues batch_norm.cu's kernel for them on the current stream of
// x's device, with a scratch of 2 C values between passes.
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/batch_norm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void queue(const char* op, const Tensor& x, const kernels::BatchNormLaunch& l) {
  launch_on(x.device(), op, &kernels::launch_batch_norm, l);
}

/// 2 C values of x's op math dtype on its device.
Tensor scratch_for(const Tensor& x) {
  return backend::new_buffer({2 * x.size(1)}, x.dtype() == kFloat64 ? kFloat64 : kFloat32,
                             x.device(), "batch_norm");
}

void stats(const Tensor& x, const Tensor& mean, const Tensor& var) {
  const kernels::BatchNormLaunch l = plan_batch_norm_stats_launch(x, mean, var);
  if (l.C > 0) queue("batch_norm", x, l);  // an empty channel's statistics are NaN (0 / 0)
}

void batch_norm(const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd,
                const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                const Tensor& var, double eps) {
  const Tensor scratch = scratch_for(x);
  const auto [params, affine] = plan_batch_norm_launches(y, save_mean, save_invstd, x, weight, bias,
                                                         mean, var, eps, scratch.data_ptr());
  if (params.C == 0) return;
  queue("batch_norm", x, params);
  if (x.numel() > 0) queue("batch_norm", x, affine);
}

void batch_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                         const Tensor& save_mean, const Tensor& save_invstd, const Tensor& weight,
                         bool training) {
  const Tensor scratch = scratch_for(x);
  const auto [sums, input] =
      plan_batch_norm_backward_launches(grad_input, grad_weight, grad_bias, x, grad_out, save_mean,
                                        save_invstd, weight, training, scratch.data_ptr());
  if (sums.C == 0) return;
  if (training || grad_weight.defined() || grad_bias.defined())
    queue("batch_norm_backward", x, sums);
  if (grad_input.defined() && x.numel() > 0) queue("batch_norm_backward", x, input);
}

}  // namespace

void install_batch_norm_kernels(backend::Backend& b) {
  b.norm.batch_norm_stats = &stats;
  b.norm.batch_norm = &batch_norm;
  b.norm.batch_norm_backward = &batch_norm_backward;
}

}  // namespace ember::cuda
