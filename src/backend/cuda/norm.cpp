// The host side of the CUDA row norms: the kCUDA backend's layer_norm, rms_norm and their fused
// backward (layer_norm_backward; an undefined mean is rms_norm's), and group_norm and its backward.
// Each plans its launches (norm_plan.cpp, tested in every build with the emulated kernels) and
// queues norm.cu's kernels on the current stream of x's device.
#include <array>

#include "backend/backend.h"
#include "backend/cuda/norm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void layer_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                const Tensor& weight, const Tensor& bias, int64_t M, int64_t N, double eps) {
  const kernels::RowNormLaunch l = plan_row_norm_launch(y, mean, rstd, x, weight, bias, M, N, eps);
  if (M == 0) return;
  launch_on(x.device(), mean.defined() ? "layer_norm" : "rms_norm", &kernels::launch_row_norm, l);
}

void rms_norm(const Tensor& y, const Tensor& rstd, const Tensor& x, const Tensor& weight, int64_t M,
              int64_t N, double eps) {
  layer_norm(y, Tensor(), rstd, x, weight, Tensor(), M, N, eps);
}

void group_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                const Tensor& weight, const Tensor& bias, int64_t G, double eps) {
  const kernels::RowNormLaunch l = plan_group_norm_launch(y, mean, rstd, x, weight, bias, G, eps);
  if (l.rows == 0) return;
  launch_on(x.device(), "group_norm", &kernels::launch_row_norm, l);
}

// Queues the passes that have something to compute: no rows, no grad_input; with no rows the
// parameters' sums are zeros, which the columns pass writes too.
void queue_backward(const char* op, const Tensor& x,
                    const std::array<kernels::RowNormBackwardLaunch, 2>& passes) {
  const auto& [rows, columns] = passes;
  if (rows.grad_input && rows.rows > 0)
    launch_on(x.device(), op, &kernels::launch_row_norm_backward, rows);
  if ((columns.grad_weight || columns.grad_bias) && columns.cols > 0)
    launch_on(x.device(), op, &kernels::launch_row_norm_backward, columns);
}

void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                         const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t M,
                         int64_t N) {
  queue_backward(mean.defined() ? "layer_norm_backward" : "rms_norm_backward", x,
                 plan_row_norm_backward_launches(grad_input, grad_weight, grad_bias, x, grad_out,
                                                 mean, rstd, weight, M, N));
}

void group_norm_backward(const Tensor& grad_input, const Tensor& grad_weight,
                         const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                         const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t G) {
  queue_backward("group_norm_backward", x,
                 plan_group_norm_backward_launches(grad_input, grad_weight, grad_bias, x, grad_out,
                                                   mean, rstd, weight, G));
}

}  // namespace

void install_norm_kernels(backend::Backend& b) {
  b.norm.layer_norm = &layer_norm;
  b.norm.rms_norm = &rms_norm;
  b.norm.group_norm = &group_norm;
  b.norm.group_norm_backward = &group_norm_backward;
  b.norm.layer_norm_backward = &layer_norm_backward;
}

}  // namespace ember::cuda
