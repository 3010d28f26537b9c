// The CUDA softmax and log_softmax kernels: one block per line, three passes over it (its max,
// the sum of exp(x - max), the outputs), each line's max subtracted so exp never overflows; an
// all -inf line gives NaN (-inf - -inf), as PyTorch's.
#include <cuda_runtime.h>

#include <cmath>

#include "backend/cuda/block_reduce.cuh"
#include "backend/cuda/softmax_launch.h"

namespace ember::cuda::kernels {
namespace {

template <class T>
__global__ void softmax_kernel(const __grid_constant__ SoftmaxLaunch l) {
  __shared__ T shared[kMaxWarps];
  __shared__ T line_max, line_sum;
  const auto max_of = [](T a, T b) { return a != a || a > b ? a : b; };
  const auto plus = [](T a, T b) { return a + b; };
  for (int64_t line = blockIdx.x; line < l.lines; line += gridDim.x) {
    const int64_t o = line / l.inner, i = line % l.inner;
    const int64_t start = o * l.dim * l.inner + i;
    const T* x = reinterpret_cast<const T*>(l.x) + start;
    T* y = reinterpret_cast<T*>(l.y) + start;
    T m = -INFINITY;
    for (int64_t j = threadIdx.x; j < l.dim; j += blockDim.x) m = max_of(m, x[j * l.inner]);
    m = block_reduce(m, max_of, T(-INFINITY), shared);
    if (threadIdx.x == 0) line_max = m;
    __syncthreads();
    m = line_max;
    T s = 0;
    for (int64_t j = threadIdx.x; j < l.dim; j += blockDim.x) s += exp(x[j * l.inner] - m);
    s = block_reduce(s, plus, T(0), shared);
    if (threadIdx.x == 0) line_sum = s;
    __syncthreads();
    s = line_sum;
    if (l.log) {
      const T shift = m + log(s);
      for (int64_t j = threadIdx.x; j < l.dim; j += blockDim.x)
        y[j * l.inner] = x[j * l.inner] - shift;
    } else {
      for (int64_t j = threadIdx.x; j < l.dim; j += blockDim.x)
        y[j * l.inner] = exp(x[j * l.inner] - m) / s;
    }
    __syncthreads();  // line_max/line_sum are rewritten for the next line
  }
}

}  // namespace

int launch_softmax(const SoftmaxLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (l.type) {
    case Type::float32: softmax_kernel<float><<<l.blocks, l.threads, 0, s>>>(l); break;
    case Type::float64: softmax_kernel<double><<<l.blocks, l.threads, 0, s>>>(l); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace ember::cuda::kernels
