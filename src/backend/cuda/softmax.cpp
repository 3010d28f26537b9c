// The host side of the CUDA softmax family: the kCUDA backend's softmax and log_softmax entries
// and their backwards (src/ops/softmax.cpp calls those when no graph of the backward is wanted;
// its differentiable formula otherwise).
#include "backend/backend.h"
#include "backend/cuda/runtime.h"
#include "backend/cuda/softmax_plan.h"

namespace ember::cuda {
namespace {

template <bool Log>
void run(const char* op, const Tensor& y, const Tensor& x, int64_t dim) {
  const kernels::SoftmaxLaunch l = plan_softmax_launch(op, y, x, dim, Log);
  if (l.lines == 0) return;
  launch_on(x.device(), op, &kernels::launch_softmax, l);
}

template <bool Log>
void run_backward(const char* op, const Tensor& dx, const Tensor& grad, const Tensor& y,
                  int64_t dim) {
  const kernels::SoftmaxBackwardLaunch l = plan_softmax_backward_launch(op, dx, grad, y, dim, Log);
  if (l.lines == 0) return;
  launch_on(y.device(), op, &kernels::launch_softmax_backward, l);
}

}  // namespace

void install_softmax_kernels(backend::Backend& b) {
  b.softmax.softmax = &run<false>;
  b.softmax.log_softmax = &run<true>;
  b.softmax.softmax_backward = &run_backward<false>;
  b.softmax.log_softmax_backward = &run_backward<true>;
}

}  // namespace ember::cuda
