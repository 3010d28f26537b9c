// The host side of the CUDA row norms: the kCUDA backend's layer_norm, rms_norm and their fused
// backward (layer_norm_backward; an undefined mean is rms_norm's), and group_norm's forward. Each
// plans its launches (norm_plan.cpp, tested in every build with the emulated kernels) and queues
// norm.cu's kernels on the current stream of x's device.
#include "backend/backend.h"
#include "backend/cuda/norm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void layer_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                const Tensor& weight, const Tensor& bias, int64_t M, int64_t N, double eps) {
  const kernels::RowNormLaunch l = plan_row_norm_launch(y, mean, rstd, x, weight, bias, M, N, eps);
  if (M == 0) return;
  launch_on(x.device(), mean.defined() ? "layer_norm" : "rms_norm",
            [&](cudaStream_t s) { return kernels::launch_row_norm(l, s); });
}

void rms_norm(const Tensor& y, const Tensor& rstd, const Tensor& x, const Tensor& weight, int64_t M,
              int64_t N, double eps) {
  layer_norm(y, Tensor(), rstd, x, weight, Tensor(), M, N, eps);
}

void group_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                const Tensor& weight, const Tensor& bias, int64_t G, double eps) {
  const kernels::RowNormLaunch l = plan_group_norm_launch(y, mean, rstd, x, weight, bias, G, eps);
  if (l.rows == 0) return;
  launch_on(x.device(), "group_norm",
            [&](cudaStream_t s) { return kernels::launch_row_norm(l, s); });
}

void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                         const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t M,
                         int64_t N) {
  const auto [rows, columns] = plan_row_norm_backward_launches(
      grad_input, grad_weight, grad_bias, x, grad_out, mean, rstd, weight, M, N);
  const char* op = mean.defined() ? "layer_norm_backward" : "rms_norm_backward";
  if (rows.grad_input && M > 0)
    launch_on(x.device(), op,
              [&](cudaStream_t s) { return kernels::launch_row_norm_backward(rows, s); });
  // With no rows the sums are zeros, which the columns pass writes too.
  if ((columns.grad_weight || columns.grad_bias) && N > 0)
    launch_on(x.device(), op,
              [&](cudaStream_t s) { return kernels::launch_row_norm_backward(columns, s); });
}

}  // namespace

void install_norm_kernels(backend::Backend& b) {
  b.norm.layer_norm = &layer_norm;
  b.norm.rms_norm = &rms_norm;
  b.norm.group_norm = &group_norm;
  b.norm.layer_norm_backward = &layer_norm_backward;
}

}  // namespace ember::cuda
