// See dropout_plan.h.
#include "backend/cuda/dropout_plan.h"

#include <algorithm>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/random_plan.h"

namespace ember::cuda {
namespace {

using kernels::Type;

// The floating storage type of `value` (and of `out`, one shape), and a bool mask of that shape.
Type check_operands(const char* op, const Tensor& out, const Tensor& value, const Tensor& mask) {
  const Type type = storage_type(value.dtype(), op);
  EMBER_CHECK(is_floating_type(type), op, "expected a floating-point input, got ", value.dtype());
  EMBER_CHECK(out.dtype() == value.dtype() && mask.dtype() == kBool &&
                  out.sizes() == value.sizes() && mask.sizes() == value.sizes(),
              op,
              "expected an output of the input's shape and dtype and a bool mask of that shape, ",
              "got input ", value.sizes(), " ", value.dtype(), ", output ", out.sizes(), " ",
              out.dtype(), ", mask ", mask.sizes(), " ", mask.dtype());
  return type;
}

}  // namespace

kernels::DropoutLaunch plan_dropout_launch(const char* op, const Tensor& y, const Tensor& mask,
                                           const Tensor& x, double p, PhiloxGenerator& gen,
                                           uint32_t max_blocks) {
  EMBER_CHECK(p >= 0 && p < 1, op, "the fused kernel expects a probability in [0, 1), got ", p);
  kernels::DropoutLaunch l{};
  l.type = check_operands(op, y, x, mask);
  static_cast<kernels::Strided&>(l) = plan_strided<3>(op, {&y, &mask, &x}, kernels::kRandomThreads);
  l.keep = 1 - p;
  if (l.numel == 0) return l;
  // PyTorch's get_vector_size: dense operands, x's address aligned to vec elements, numel a
  // multiple of vec. One merged dim with element-sized strides is "dense in one order".
  const int64_t item = kernels::type_size(l.type);
  const bool dense =
      l.ndim <= 1 &&
      (l.ndim == 0 || (l.strides[0][0] == item && l.strides[1][0] == 1 && l.strides[2][0] == item));
  const auto address = reinterpret_cast<uintptr_t>(l.base[2]);
  l.vec = 1;
  for (int32_t vec : {4, 2})
    if (dense && address % uintptr_t(vec * item) == 0 && l.numel % vec == 0) {
      l.vec = vec;
      break;
    }
  const RandomGrid grid = random_grid(l.numel, max_blocks, gen);
  l.blocks = grid.blocks;
  l.seed = grid.inputs.seed;
  l.offset = grid.inputs.offset;
  return l;
}

kernels::DropoutBackwardLaunch plan_dropout_backward_launch(const char* op, const Tensor& dx,
                                                            const Tensor& grad, const Tensor& mask,
                                                            double scale) {
  kernels::DropoutBackwardLaunch l{};
  l.type = check_operands(op, dx, grad, mask);
  static_cast<kernels::Strided&>(l) = plan_strided<3>(op, {&dx, &grad, &mask});
  l.scale = scale;
  return l;
}

}  // namespace ember::cuda
