// One launch of a block body on either side, so that a family's launcher (its .cu) and its CPU
// emulation (its _emulation.cpp) are one line each instead of a copy of the same grid code.
//
// A family declares, next to its bodies, `with_body(const XLaunch& l, F&& f)`: it calls
// f(Tag<Body>{}) for the body that runs l (a type with `template <class Block> EMBER_HOST_DEVICE
// static void run(const Block&, const XLaunch&)`, Note [Block programs] in block.cuh) and returns
// false when it has none (a type the family has no kernel for). The launch struct gives the grid:
// l.blocks blocks (x) of l.threads threads. Overloading on the launch type lets launch_grid and
// emulate_launch find the family's with_body without being told.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"

#ifdef __CUDACC__
#include <cuda_runtime.h>
#else
#include "ember/error.h"
#endif

namespace ember::cuda::kernels {

#ifdef __CUDACC__
template <class Body, class L>
__global__ void body_kernel(const __grid_constant__ L l) {
  Body::run(DeviceBlock{}, l);
}

/// Queues the body with_body(l) picks over l's grid on `stream` (a cudaStream_t); returns the
/// launch's cudaError_t, cudaErrorInvalidValue when there is no body for l.
template <class L>
int launch_grid(const L& l, void* stream) {
  int status = int(cudaErrorInvalidValue);
  with_body(l, [&](auto body) {
    body_kernel<typename decltype(body)::type, L>
        <<<l.blocks, l.threads, 0, static_cast<cudaStream_t>(stream)>>>(l);
    status = int(cudaGetLastError());
  });
  return status;
}
#else
/// Runs the body with_body(l) picks over l's grid of HostBlocks; `[cuda emulation] no <what>
/// kernel ...` when there is none or the device would refuse the block (emulate_grid).
template <class L>
void emulate_launch(const L& l, const char* what) {
  bool ran = false;
  with_body(l, [&](auto body) {
    ran = emulate_grid(l.blocks, 1, l.threads,
                       [&](const HostBlock& b) { decltype(body)::type::run(b, l); });
  });
  EMBER_CHECK(ran, "cuda emulation", "no ", what, " kernel for this launch (blocks of ", l.threads,
              " threads)");
}
#endif

}  // namespace ember::cuda::kernels
