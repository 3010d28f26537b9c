// See elementwise_plan.h.
#include "backend/cuda/elementwise_plan.h"

#include <array>

#include "backend/cpu/loop.h"

namespace ember::cuda {
namespace {

// masked_fill and where only select: they take the integer and bool types the cuda copies
// have (the front end converts the mask or condition to the compute dtype with a copy first).
kernels::Type kernel_type(kernels::Op op, const backend::ElementwiseCall& call) {
  const bool selects = op == kernels::Op::masked_fill || op == kernels::Op::where;
  switch (call.compute) {
    case kFloat32: return kernels::Type::float32;
    case kFloat64: return kernels::Type::float64;
    case kFloat16: return kernels::Type::float16;
    case kBFloat16: return kernels::Type::bfloat16;
    case kInt32:
      if (selects) return kernels::Type::int32;
      break;
    case kInt64:
      if (selects) return kernels::Type::int64;
      break;
    case kBool:
      if (selects) return kernels::Type::boolean;
      break;
    default:
      break;
  }
  fail(call.op, "the cuda backend has no ", dtype_name(call.compute), " kernel yet (", call.op,
       " on ", call.out.device(), " takes float32, float64, float16",
       selects ? ", bfloat16, int32, int64 or bool)" : " or bfloat16)");
}

}  // namespace

kernels::Launch plan_elementwise_launch(kernels::Op op, int inputs,
                                        const backend::ElementwiseCall& call) {
  kernels::Launch l{};
  l.op = op;
  l.type = kernel_type(op, call);
  EMBER_CHECK(inputs >= 1 && inputs < kernels::kMaxOperands && size_t(inputs) <= call.in.size(),
              call.op, "an elementwise launch takes 1 to ", kernels::kMaxOperands - 1,
              " inputs, got ", inputs, " of ", call.in.size());
  // The operands are in the compute dtype (promoted by the front end), so their own strides are it.
  kernels::Strided& strided = l;
  if (inputs == 1)
    strided = plan_strided<2>(call.op, {&call.out, &call.in[0]});
  else if (inputs == 2)
    strided = plan_strided<3>(call.op, {&call.out, &call.in[0], &call.in[1]});
  else
    strided = plan_strided<4>(call.op, {&call.out, &call.in[0], &call.in[1], &call.in[2]});
  l.alpha = call.args.scalar[0] ? call.args.scalar[0]->to_double() : 1.0;
  if (op == kernels::Op::masked_fill && !is_floating_point(call.compute)) {
    EMBER_CHECK(call.args.scalar[0].has_value(), call.op, "expected the fill value, got none");
    const Scalar& value = *call.args.scalar[0];
    l.integer = call.compute == kInt32   ? value.to<int32_t>()
                : call.compute == kInt64 ? value.to<int64_t>()
                                         : int64_t(value.to<bool>());
  }
  return l;
}

namespace {

// A CPU loop plan as the kernels' strided layout, with the grid for `threads` per block.
template <int N>
kernels::Strided to_strided(const char* op, const cpu::LoopPlan<N>& plan, IntArrayRef shape,
                            uint32_t threads) {
  static_assert(N <= kernels::kMaxOperands);
  const int ndim = int(plan.shape.size());
  EMBER_CHECK(ndim <= kernels::kMaxDims, op, "the cuda backend's elementwise kernels take at most ",
              kernels::kMaxDims, " dimensions that cannot be merged, got ", ndim, " (shape ", shape,
              ")");
  kernels::Strided l{};
  l.ndim = ndim;
  l.numel = plan.numel;
  for (int d = 0; d < ndim; ++d) {
    l.shape[d] = plan.shape[size_t(d)];
    for (int k = 0; k < N; ++k) l.strides[k][d] = plan.strides[size_t(k)][size_t(d)];
  }
  for (int k = 0; k < N; ++k) l.base[k] = plan.base[size_t(k)];
  l.threads = threads;
  l.blocks = grid_blocks(l.numel, threads);
  return l;
}

}  // namespace

template <int N>
kernels::Strided plan_strided(const char* op, const std::array<const Tensor*, N>& tensors,
                              uint32_t threads) {
  const IntArrayRef shape = tensors[0]->sizes();
  return to_strided<N>(op, cpu::plan_tensors<N>(shape, tensors), shape, threads);
}

template <int N>
kernels::Strided plan_strided(const char* op, IntArrayRef shape, const std::array<char*, N>& base,
                              const std::array<IntArrayRef, N>& byte_strides, uint32_t threads) {
  return to_strided<N>(op, cpu::plan_loop<N>(shape, base, byte_strides), shape, threads);
}

template kernels::Strided plan_strided<1>(const char*, const std::array<const Tensor*, 1>&,
                                          uint32_t);
template kernels::Strided plan_strided<2>(const char*, const std::array<const Tensor*, 2>&,
                                          uint32_t);
template kernels::Strided plan_strided<2>(const char*, IntArrayRef, const std::array<char*, 2>&,
                                          const std::array<IntArrayRef, 2>&, uint32_t);
template kernels::Strided plan_strided<3>(const char*, const std::array<const Tensor*, 3>&,
                                          uint32_t);
template kernels::Strided plan_strided<4>(const char*, const std::array<const Tensor*, 4>&,
                                          uint32_t);

}  // namespace ember::cuda
