// The host side of the CUDA fused dropout: the kCUDA backend's dropout and dropout_backward
// entries (PyTorch's native_dropout and native_dropout_backward). Each plans its launch
// (dropout_plan.cpp, tested in every build with the emulated kernel), the forward with the grid
// and generator of the random fills (random_target), then queues dropout.cu's kernel.
#include "backend/backend.h"
#include "backend/cuda/dropout_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void dropout(const char* op, const Tensor& y, const Tensor& mask, const Tensor& x, double p,
             Generator* gen) {
  const RandomTarget target = random_target(op, x.device(), gen);
  const kernels::DropoutLaunch l =
      plan_dropout_launch(op, y, mask, x, p, target.gen, target.max_blocks);
  if (l.numel == 0) return;
  launch_on(x.device(), op, &kernels::launch_dropout, l);
}

void dropout_backward(const char* op, const Tensor& dx, const Tensor& grad, const Tensor& mask,
                      double scale) {
  const kernels::DropoutBackwardLaunch l = plan_dropout_backward_launch(op, dx, grad, mask, scale);
  if (l.numel == 0) return;
  launch_on(dx.device(), op, &kernels::launch_dropout_backward, l);
}

}  // namespace

void install_dropout_kernels(backend::Backend& b) {
  b.random.dropout = &dropout;
  b.random.dropout_backward = &dropout_backward;
}

}  // namespace ember::cuda
