// The CUDA reduction kernels (sum, mean, amax, amin) over the two index spaces of
// reduce_launch.h: each block reduces one output (or one chunk of it) with a block-wide
// reduction; float16/bfloat16 load into a float32 accumulator, as PyTorch's acc_type, and round
// once on the store. amax/amin propagate NaN, as torch.amax does.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "backend/cuda/block_reduce.cuh"
#include "backend/cuda/reduce_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {
namespace {

template <class Acc>
struct Sum {
  __device__ Acc identity() const { return Acc(0); }
  __device__ Acc operator()(Acc a, Acc b) const { return a + b; }
};
template <class Acc>
struct Max {  // NaN wins
  __device__ Acc identity() const { return -INFINITY; }
  __device__ Acc operator()(Acc a, Acc b) const { return a != a || a > b ? a : b; }
};
template <class Acc>
struct Min {
  __device__ Acc identity() const { return INFINITY; }
  __device__ Acc operator()(Acc a, Acc b) const { return a != a || a < b ? a : b; }
};

template <class S, class Acc>
__device__ void store(const ReduceLaunch& l, int64_t o, Acc acc) {
  if (l.op == ReduceOp::mean) acc = acc / Acc(l.divisor);
  reinterpret_cast<S*>(l.out)[o] = S(acc);
}

template <class S, class Acc, class R>
__global__ void reduce_kernel(R r, const __grid_constant__ ReduceLaunch l) {
  __shared__ Acc shared[kMaxWarps];
  const int64_t begin = int64_t(blockIdx.y) * l.chunk;
  const int64_t end = begin + l.chunk < l.reduced ? begin + l.chunk : l.reduced;
  for (int64_t o = blockIdx.x; o < l.outputs; o += gridDim.x) {
    const char* line = l.in + offset_of(l.kept_ndim, l.kept_shape, l.kept_strides, o);
    Acc acc = r.identity();
    for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
      const S v = *reinterpret_cast<const S*>(
          line + offset_of(l.reduced_ndim, l.reduced_shape, l.reduced_strides, j));
      acc = r(acc, Acc(v));
    }
    acc = block_reduce(acc, r, r.identity(), shared);
    if (threadIdx.x != 0) continue;
    if (gridDim.y == 1) store<S>(l, o, acc);
    else static_cast<Acc*>(l.partial)[o * gridDim.y + blockIdx.y] = acc;
  }
}

// The second pass when the reduced elements were split: one thread combines one output's row.
template <class S, class Acc, class R>
__global__ void combine_kernel(R r, const __grid_constant__ ReduceLaunch l) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < l.outputs; o += step) {
    const Acc* row = static_cast<const Acc*>(l.partial) + o * l.splits;
    Acc acc = r.identity();
    for (uint32_t s = 0; s < l.splits; ++s) acc = r(acc, row[s]);
    store<S>(l, o, acc);
  }
}

template <class S, class Acc, class R>
int go(R r, const ReduceLaunch& l, cudaStream_t stream) {
  reduce_kernel<S, Acc><<<dim3(l.blocks, l.splits), l.threads, 0, stream>>>(r, l);
  if (l.splits > 1) {
    const int64_t blocks = (l.outputs + l.threads - 1) / l.threads;
    const unsigned grid = unsigned(blocks < 65536 ? blocks : 65536);
    combine_kernel<S, Acc><<<grid, l.threads, 0, stream>>>(r, l);
  }
  return int(cudaGetLastError());
}

template <class S, class Acc>
int launch_typed(const ReduceLaunch& l, cudaStream_t s) {
  switch (l.op) {
    case ReduceOp::sum:
    case ReduceOp::mean: return go<S, Acc>(Sum<Acc>{}, l, s);
    case ReduceOp::amax: return go<S, Acc>(Max<Acc>{}, l, s);
    case ReduceOp::amin: return go<S, Acc>(Min<Acc>{}, l, s);
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace

int launch_reduce(const ReduceLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (l.type) {
    case Type::float32: return launch_typed<float, float>(l, s);
    case Type::float64: return launch_typed<double, double>(l, s);
    case Type::float16: return launch_typed<__half, float>(l, s);
    case Type::bfloat16: return launch_typed<__nv_bfloat16, float>(l, s);
    default: break;  // the plan only asks for the floating types
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace ember::cuda::kernels
