// The host side of the CUDA softmax family: the kCUDA backend's softmax and log_softmax entries
// (their backward formulas are differentiable ops in src/ops/softmax.cpp, which run on the
// elementwise and reduction kernels).
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

}  // namespace

void install_softmax_kernels(backend::Backend& b) {
  b.softmax.softmax = &run<false>;
  b.softmax.log_softmax = &run<true>;
}

}  // namespace ember::cuda
