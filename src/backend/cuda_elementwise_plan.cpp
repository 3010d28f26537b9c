// See cuda_elementwise_plan.h.
#include "backend/cuda_elementwise_plan.h"

#include <algorithm>
#include <array>

#include "backend/cpu/loop.h"

namespace ember::cuda {
namespace {

kernels::Type kernel_type(const backend::ElementwiseCall& call) {
  switch (call.compute) {
    case kFloat32: return kernels::Type::float32;
    case kFloat64: return kernels::Type::float64;
    case kFloat16: return kernels::Type::float16;
    case kBFloat16: return kernels::Type::bfloat16;
    default: fail(call.op, "the cuda backend has no ", dtype_name(call.compute), " kernel yet (",
                  call.op, " on ", call.out.device(), " takes float32, float64, float16 or "
                  "bfloat16)");
  }
}

// N operands: the output and N - 1 inputs, all in the compute dtype.
template <int N>
void plan_layout(const backend::ElementwiseCall& call, kernels::Launch& l) {
  const int64_t item = itemsize(call.compute);
  std::array<char*, N> base{};
  std::array<DimVector, N> bytes;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = k == 0 ? call.out : call.in[size_t(k - 1)];
    base[size_t(k)] = static_cast<char*>(t.data_ptr());
    bytes[size_t(k)] = cpu::byte_strides(t.strides(), item);
  }
  std::array<IntArrayRef, N> strides;
  for (int k = 0; k < N; ++k) strides[size_t(k)] = bytes[size_t(k)];
  const cpu::LoopPlan<N> plan = cpu::plan_loop<N>(call.out.sizes(), base, strides);
  const int ndim = int(plan.shape.size());
  EMBER_CHECK(ndim <= kernels::kMaxDims, call.op, "the cuda backend's elementwise kernels take at "
              "most ", kernels::kMaxDims, " dimensions that cannot be merged, got ", ndim,
              " (shape ", call.out.sizes(), ")");
  l.ndim = ndim;
  l.numel = plan.numel;
  for (int d = 0; d < ndim; ++d) {
    l.shape[d] = plan.shape[size_t(d)];
    for (int k = 0; k < N; ++k) l.strides[k][d] = plan.strides[size_t(k)][size_t(d)];
  }
  for (int k = 0; k < N; ++k) l.base[k] = plan.base[size_t(k)];
}

}  // namespace

kernels::Launch plan_elementwise_launch(kernels::Op op, int inputs,
                                        const backend::ElementwiseCall& call) {
  kernels::Launch l{};
  l.op = op;
  l.type = kernel_type(call);
  EMBER_CHECK(inputs >= 1 && inputs < kernels::kMaxOperands && size_t(inputs) <= call.in.size(),
              call.op, "an elementwise launch takes 1 or 2 inputs, got ", inputs, " of ",
              call.in.size());
  if (inputs == 1) plan_layout<2>(call, l);
  else plan_layout<3>(call, l);
  l.alpha = call.args.scalar[0] ? call.args.scalar[0]->to_double() : 1.0;
  l.threads = kElementwiseThreads;
  const int64_t blocks = (l.numel + kElementwiseThreads - 1) / kElementwiseThreads;
  l.blocks = uint32_t(std::clamp<int64_t>(blocks, 1, kElementwiseMaxBlocks));
  return l;
}

}  // namespace ember::cuda
