// See elementwise_plan.h.
#include "backend/cuda/elementwise_plan.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>

#include "backend/cpu/loop.h"
#include "backend/cuda/elementwise_body.cuh"

namespace ember::cuda {
namespace {

using backend::ElementwiseCall;
using backend::ElementwiseKernel;
using kernels::Type;

// The dtypes of kernels::Type, in its order.
constexpr Dtype kTypeDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};

// The storage type of `call`'s compute dtype when the kernel takes it, else the error naming
// what it takes.
Type kernel_type(const ElementwiseCall& call, kernels::TypeSet types) {
  std::string takes;
  int listed = 0, count = std::popcount(types);
  for (int t = 0; t < int(std::size(kTypeDtypes)); ++t) {
    if (!(types & kernels::type_bit(Type(t)))) continue;
    if (kTypeDtypes[t] == call.compute) return Type(t);
    takes += std::string(listed == 0 ? "" : listed + 1 == count ? " or " : ", ") +
             dtype_name(kTypeDtypes[t]);
    ++listed;
  }
  fail(call.op, "the cuda backend has no ", dtype_name(call.compute), " kernel yet (", call.op,
       " on ", call.out.device(), " takes ", takes, ")");
}

const Scalar& required_scalar(const ElementwiseCall& call, int k, const char* what) {
  EMBER_CHECK(call.args.scalar[size_t(k)].has_value(), call.op, "expected the ", what,
              ", got none");
  return *call.args.scalar[size_t(k)];
}

// A scalar argument as the CPU kernel converts it (Scalar::to of its compute type, float for
// the half types): a double for the floating types, an int64 for the others.
void set_scalar(kernels::Launch& l, int k, const Scalar& s, Dtype compute) {
  switch (compute) {
    case kFloat64: l.scalar[k] = s.to<double>(); break;
    case kInt32: l.integer_scalar[k] = s.to<int32_t>(); break;
    case kInt64: l.integer_scalar[k] = s.to<int64_t>(); break;
    case kBool: l.integer_scalar[k] = s.to<bool>(); break;
    default: l.scalar[k] = double(s.to<float>()); break;
  }
}

// PyTorch's alpha_check (binary.cpp): a bool alpha needs a bool result, a floating one a
// floating result.
void check_alpha(const ElementwiseCall& call, const Scalar& alpha) {
  EMBER_CHECK(!alpha.is_bool() || call.compute == kBool, call.op,
              "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(is_floating_point(call.compute) || !alpha.is_floating_point(), call.op,
              "For integral input tensors, argument alpha must not be a floating point number.");
}

// clamp's bounds as unary.cpp's clamp takes them (Note [clamp and NaN] there): an absent one is
// the type's extreme, a NaN one alone is ignored, an integer one must fit an int32 compute type.
void set_clamp_bounds(kernels::Launch& l, const ElementwiseCall& call) {
  const std::optional<Scalar>& lo = call.args.scalar[0];
  const std::optional<Scalar>& hi = call.args.scalar[1];
  if (is_floating_point(call.compute)) {
    const double inf = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 2; ++k)
      if (call.args.scalar[size_t(k)]) set_scalar(l, k, *call.args.scalar[size_t(k)], call.compute);
    if (!lo) l.scalar[0] = -inf;
    if (!hi) l.scalar[1] = inf;
    if (!(lo && hi)) {
      if (std::isnan(l.scalar[0])) l.scalar[0] = -inf;
      if (std::isnan(l.scalar[1])) l.scalar[1] = inf;
    }
    return;
  }
  const bool int32 = call.compute == kInt32;
  const int64_t lowest = int32 ? std::numeric_limits<int32_t>::lowest()
                               : std::numeric_limits<int64_t>::lowest();
  const int64_t highest =
      int32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  for (int k = 0; k < 2; ++k) {
    const std::optional<Scalar>& bound = call.args.scalar[size_t(k)];
    if (!bound) {
      l.integer_scalar[k] = k == 0 ? lowest : highest;
      continue;
    }
    const int64_t v = bound->to_int();
    EMBER_CHECK(bound->is_floating_point() || (v >= lowest && v <= highest), call.op,
                "value cannot be converted to type ", call.compute, " without overflow");
    set_scalar(l, k, *bound, call.compute);
  }
}

}  // namespace

bool has_elementwise_kernel(ElementwiseKernel op) { return kernels::op_info(op).inputs > 0; }

kernels::Launch plan_elementwise_launch(ElementwiseKernel op, const ElementwiseCall& call) {
  using K = ElementwiseKernel;
  const kernels::OpInfo info = kernels::op_info(op);
  EMBER_CHECK(info.inputs > 0, call.op, "the cuda backend has no kernel for elementwise entry ",
              int(op));
  kernels::Launch l{};
  l.op = op;
  l.type = kernel_type(call, info.types);
  l.out_type = info.predicate ? Type::boolean : l.type;
  const Dtype out_dtype = info.predicate ? kBool : call.compute;
  EMBER_CHECK(call.out.dtype() == out_dtype, call.op, "expected a ", out_dtype,
              " output, got ", call.out.dtype());
  EMBER_CHECK(call.in.size() >= size_t(info.inputs), call.op, "expected ", info.inputs,
              " inputs, got ", call.in.size());
  // The operands are in the compute dtype (promoted by the front end), so their own strides are it.
  kernels::Strided& strided = l;
  if (info.inputs == 1)
    strided = plan_strided<2>(call.op, {&call.out, &call.in[0]});
  else if (info.inputs == 2)
    strided = plan_strided<3>(call.op, {&call.out, &call.in[0], &call.in[1]});
  else
    strided = plan_strided<4>(call.op, {&call.out, &call.in[0], &call.in[1], &call.in[2]});

  for (int k = 0; k < 3; ++k) l.real[k] = call.args.real[size_t(k)];
  l.integer = call.args.integer;
  l.flag = call.args.flag;
  switch (op) {
    case K::add:
    case K::sub: {
      const Scalar& alpha = required_scalar(call, 0, "alpha");
      check_alpha(call, alpha);
      set_scalar(l, 0, alpha, call.compute);
      break;
    }
    case K::lerp_scalar:
      set_scalar(l, 0, required_scalar(call, 0, "weight"), call.compute);
      break;
    case K::addcmul:
    case K::addcdiv:
    case K::masked_fill:
      set_scalar(l, 0, required_scalar(call, 0, "value"), call.compute);
      break;
    case K::clamp:
      set_clamp_bounds(l, call);
      break;
    case K::round_decimals:  // the CPU kernel's scale
      l.real[0] = std::pow(10.0, double(std::abs(call.args.integer)));
      break;
    default:
      break;
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
