// The host side of the CUDA elementwise kernels: the kCUDA backend's ElementwiseKernel entries.
// Each entry plans the operands' layout with the CPU's strided-loop planner (size-1 dims dropped,
// contiguous dims merged), packs it into a kernels::Launch and queues the kernel on the current
// stream of the output's device (elementwise.cu). Floating dtypes only, so far: another dtype is
// `[op] the cuda backend has no <dtype> kernel`.
#include <array>

#include "backend/backend.h"
#include "backend/cpu/loop.h"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseCall;
using backend::ElementwiseKernel;
using kernels::Op;

kernels::Type kernel_type(const ElementwiseCall& call) {
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

template <Op K, int NIn>
void run(const ElementwiseCall& call) {
  constexpr int N = NIn + 1;
  static_assert(N <= kernels::kMaxOperands);
  const Tensor& out = call.out;
  if (out.numel() == 0) return;
  kernels::Launch l{};
  l.op = K;
  l.type = kernel_type(call);
  const int64_t item = itemsize(call.compute);
  std::array<char*, N> base{static_cast<char*>(out.data_ptr())};
  std::array<DimVector, N> bytes{cpu::byte_strides(out.strides(), item)};
  for (int k = 0; k < NIn; ++k) {
    base[size_t(k + 1)] = static_cast<char*>(call.in[size_t(k)].data_ptr());
    bytes[size_t(k + 1)] = cpu::byte_strides(call.in[size_t(k)].strides(), item);
  }
  std::array<IntArrayRef, N> strides;
  for (int k = 0; k < N; ++k) strides[size_t(k)] = bytes[size_t(k)];
  const cpu::LoopPlan<N> plan = cpu::plan_loop<N>(out.sizes(), base, strides);
  const int ndim = int(plan.shape.size());
  EMBER_CHECK(ndim <= kernels::kMaxDims, call.op, "the cuda backend's elementwise kernels take at "
              "most ", kernels::kMaxDims, " dimensions that cannot be merged, got ", ndim,
              " (shape ", out.sizes(), ")");
  l.ndim = ndim;
  l.numel = plan.numel;
  for (int d = 0; d < ndim; ++d) {
    l.shape[d] = plan.shape[size_t(d)];
    for (int k = 0; k < N; ++k) l.strides[k][d] = plan.strides[size_t(k)][size_t(d)];
  }
  for (int k = 0; k < N; ++k) l.base[k] = plan.base[size_t(k)];
  l.alpha = call.args.scalar[0] ? call.args.scalar[0]->to_double() : 1.0;
  const int device = resolve_device(out.device(), call.op);
  DeviceGuard guard(device, call.op);
  check(cudaError_t(kernels::launch_elementwise(l, current_stream_handle(device))), call.op,
        " launching its kernel on cuda:", device);
}

}  // namespace

void install_elementwise_kernels(backend::Backend& b) {
  using K = ElementwiseKernel;
  b[K::neg] = &run<Op::neg, 1>;
  b[K::abs] = &run<Op::abs, 1>;
  b[K::sqrt] = &run<Op::sqrt, 1>;
  b[K::rsqrt] = &run<Op::rsqrt, 1>;
  b[K::square] = &run<Op::square, 1>;
  b[K::reciprocal] = &run<Op::reciprocal, 1>;
  b[K::exp] = &run<Op::exp, 1>;
  b[K::log] = &run<Op::log, 1>;
  b[K::sin] = &run<Op::sin, 1>;
  b[K::cos] = &run<Op::cos, 1>;
  b[K::tanh] = &run<Op::tanh, 1>;
  b[K::sigmoid] = &run<Op::sigmoid, 1>;
  b[K::relu] = &run<Op::relu, 1>;
  b[K::add] = &run<Op::add, 2>;
  b[K::sub] = &run<Op::sub, 2>;
  b[K::mul] = &run<Op::mul, 2>;
  b[K::true_div] = &run<Op::true_div, 2>;
  b[K::maximum] = &run<Op::maximum, 2>;
  b[K::minimum] = &run<Op::minimum, 2>;
}

}  // namespace ember::cuda
