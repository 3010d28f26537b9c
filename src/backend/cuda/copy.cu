// The CUDA copy and fill kernels: a grid-stride loop over the strided layout (strided.cuh), one
// instantiation per (destination, source) storage type for copies and one per element size for
// fills. Conversions follow core/convert.h, so a copy on the device gives the CPU's bits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "backend/cuda/copy_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {
namespace {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// core/convert.h's rules on the device.
template <class D, class S>
__device__ D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_half_v<S>) {
    return convert<D>(float(v));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_half_v<D>) {
    return D(float(v));
  } else {
    return static_cast<D>(v);
  }
}

template <class D, class S>
__global__ void copy_kernel(const __grid_constant__ CopyLaunch l) {
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[2];
    strided_offsets(l, i, off);
    *reinterpret_cast<D*>(l.base[0] + off[0]) =
        convert<D>(*reinterpret_cast<const S*>(l.base[1] + off[1]));
  }
}

template <class U>
__global__ void fill_kernel(const __grid_constant__ FillLaunch l) {
  const U value = U(l.bits);
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[1];
    strided_offsets(l, i, off);
    *reinterpret_cast<U*>(l.base[0] + off[0]) = value;
  }
}

template <class T>
struct Tag {
  using type = T;
};

// Calls f(Tag<storage type of t>{}).
template <class F>
int with_type(Type t, F&& f) {
  switch (t) {
    case Type::float32: return f(Tag<float>{});
    case Type::float64: return f(Tag<double>{});
    case Type::float16: return f(Tag<__half>{});
    case Type::bfloat16: return f(Tag<__nv_bfloat16>{});
    case Type::int32: return f(Tag<int32_t>{});
    case Type::int64: return f(Tag<int64_t>{});
    case Type::boolean: return f(Tag<bool>{});
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace

int launch_copy(const CopyLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return with_type(l.dst, [&](auto d) {
    return with_type(l.src, [&](auto src) {
      using D = typename decltype(d)::type;
      using S = typename decltype(src)::type;
      copy_kernel<D, S><<<l.blocks, l.threads, 0, s>>>(l);
      return int(cudaGetLastError());
    });
  });
}

int launch_fill(const FillLaunch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (l.itemsize) {
    case 1: fill_kernel<uint8_t><<<l.blocks, l.threads, 0, s>>>(l); break;
    case 2: fill_kernel<uint16_t><<<l.blocks, l.threads, 0, s>>>(l); break;
    case 4: fill_kernel<uint32_t><<<l.blocks, l.threads, 0, s>>>(l); break;
    case 8: fill_kernel<uint64_t><<<l.blocks, l.threads, 0, s>>>(l); break;
    default: return int(cudaErrorInvalidValue);
  }
  return int(cudaGetLastError());
}

}  // namespace ember::cuda::kernels
