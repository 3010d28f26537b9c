// The host side of the CUDA elementwise kernels: the kCUDA backend's ElementwiseKernel entries.
// Each entry packs its call into a kernels::Launch (elementwise_plan.cpp, built and tested
// in every build) and queues the kernel on the current stream of the output's device
// (elementwise.cu). Floating dtypes only, so far, but for masked_fill and where (also int32, int64
// and bool).
#include "backend/backend.h"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseCall;
using backend::ElementwiseKernel;
using kernels::Op;

template <Op K, int NIn>
void run(const ElementwiseCall& call) {
  const kernels::Launch l = plan_elementwise_launch(K, NIn, call);
  if (l.numel == 0) return;
  launch_on(call.out.device(), call.op, &kernels::launch_elementwise, l);
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
  b[K::masked_fill] = &run<Op::masked_fill, 2>;
  b[K::where] = &run<Op::where, 3>;
}

}  // namespace ember::cuda
