// The host side of the CUDA elementwise kernels: the kCUDA backend's ElementwiseKernel entries,
// one for every kernel the table of elementwise_body.cuh has. Each entry packs its call into a
// kernels::Launch (elementwise_plan.cpp, built and tested in every build) and queues the kernel
// on the current stream of the output's device (elementwise.cu).
#include <utility>

#include "backend/backend.h"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseCall;
using backend::ElementwiseKernel;

// An entry per kernel: the call does not say which kernel it is for.
template <ElementwiseKernel K>
void run(const ElementwiseCall& call) {
  const kernels::Launch l = plan_elementwise_launch(K, call);
  if (l.numel == 0) return;
  launch_on(call.out.device(), call.op, &kernels::launch_elementwise, l);
}

}  // namespace

void install_elementwise_kernels(backend::Backend& b) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((has_elementwise_kernel(ElementwiseKernel(I)) ? void(b[ElementwiseKernel(I)] =
                                                              &run<ElementwiseKernel(I)>)
                                                   : void()),
     ...);
  }(std::make_index_sequence<size_t(ElementwiseKernel::kCount)>());
}

}  // namespace ember::cuda
