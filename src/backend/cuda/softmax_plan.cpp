// See softmax_plan.h.
#include "backend/cuda/softmax_plan.h"

#include <algorithm>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/random_plan.h"
#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {
namespace {

// The lines of x along `dim` and their grid.
kernels::SoftmaxLines softmax_lines(const Tensor& x, int64_t dim) {
  kernels::SoftmaxLines l{};
  l.outer = 1;
  l.inner = 1;
  l.dim = x.dim() == 0 ? 1 : x.sizes()[dim];
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < dim) l.outer *= x.sizes()[d];
    if (d > dim) l.inner *= x.sizes()[d];
  }
  l.lines = l.dim == 0 ? 0 : l.outer * l.inner;  // an empty dim has nothing to write
  l.threads = block_threads(l.dim, kSoftmaxThreads);
  l.blocks = uint32_t(std::clamp<int64_t>(l.lines, 1, 65536));
  return l;
}

// Every operand contiguous, of `first`'s shape and dtype.
void check_alike(const char* op, std::initializer_list<const Tensor*> operands) {
  const Tensor& first = **operands.begin();
  for (const Tensor* t : operands)
    EMBER_CHECK(t->is_contiguous() && t->sizes() == first.sizes() && t->dtype() == first.dtype(),
                op, "expected contiguous operands of one shape and dtype, got ", first.sizes(), " ",
                first.dtype(), " and ", t->sizes(), " ", t->dtype(),
                t->is_contiguous() ? "" : " (not contiguous)");
}

}  // namespace

kernels::SoftmaxLaunch plan_softmax_launch(const char* op, const Tensor& y, const Tensor& x,
                                           int64_t dim, bool log) {
  EMBER_CHECK(x.dtype() == kFloat32 || x.dtype() == kFloat64, op, "the cuda backend has no ",
              dtype_name(x.dtype()), " kernel yet (", op, " on ", x.device(),
              " computes in float32 or float64)");
  check_alike(op, {&x, &y});
  kernels::SoftmaxLaunch l{};
  static_cast<kernels::SoftmaxLines&>(l) = softmax_lines(x, dim);
  l.type = x.dtype() == kFloat32 ? kernels::Type::float32 : kernels::Type::float64;
  l.log = log;
  l.x = static_cast<const char*>(x.data_ptr());
  l.y = static_cast<char*>(y.data_ptr());
  return l;
}

kernels::SoftmaxBackwardLaunch plan_softmax_backward_launch(const char* op, const Tensor& dx,
                                                            const Tensor& grad, const Tensor& y,
                                                            int64_t dim, bool log) {
  kernels::SoftmaxBackwardLaunch l{};
  l.type = storage_type(y.dtype(), op);
  EMBER_CHECK(is_floating_type(l.type), op, "expected a floating-point output, got ", y.dtype());
  check_alike(op, {&y, &grad, &dx});
  static_cast<kernels::SoftmaxLines&>(l) = softmax_lines(y, dim);
  l.log = log;
  l.grad = static_cast<const char*>(grad.data_ptr());
  l.y = static_cast<const char*>(y.data_ptr());
  l.dx = static_cast<char*>(dx.data_ptr());
  return l;
}

}  // namespace ember::cuda
