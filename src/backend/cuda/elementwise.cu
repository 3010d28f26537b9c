// The CUDA elementwise kernels: one grid-stride kernel per (storage type, functor) over the
// strided layout of elementwise_launch.h (offsets by strided.cuh), float16/bfloat16 loaded into
// float32 and rounded once on the store (PyTorch's opmath).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {
namespace {

template <class S>
struct Opmath {
  using type = S;
};
template <>
struct Opmath<__half> {
  using type = float;
};
template <>
struct Opmath<__nv_bfloat16> {
  using type = float;
};

// ── functors: unary ones take x, binary ones (a, b, alpha) ──────────────────────────────────
struct Neg {
  template <class C> __device__ C operator()(C x) const { return -x; }
};
struct Abs {
  template <class C> __device__ C operator()(C x) const { return fabs(x); }
};
struct Sqrt {
  template <class C> __device__ C operator()(C x) const { return sqrt(x); }
};
struct Rsqrt {
  template <class C> __device__ C operator()(C x) const { return rsqrt(x); }
};
struct Square {
  template <class C> __device__ C operator()(C x) const { return x * x; }
};
struct Reciprocal {
  template <class C> __device__ C operator()(C x) const { return C(1) / x; }
};
struct Exp {
  template <class C> __device__ C operator()(C x) const { return exp(x); }
};
struct Log {
  template <class C> __device__ C operator()(C x) const { return log(x); }
};
struct Sin {
  template <class C> __device__ C operator()(C x) const { return sin(x); }
};
struct Cos {
  template <class C> __device__ C operator()(C x) const { return cos(x); }
};
struct Tanh {
  template <class C> __device__ C operator()(C x) const { return tanh(x); }
};
struct Sigmoid {
  template <class C> __device__ C operator()(C x) const { return C(1) / (C(1) + exp(-x)); }
};
struct Relu {  // NaN stays NaN (x < 0 is false for it), as torch.relu
  template <class C> __device__ C operator()(C x) const { return x < C(0) ? C(0) : x; }
};
struct Add {
  template <class C> __device__ C operator()(C a, C b, C alpha) const { return a + alpha * b; }
};
struct Sub {
  template <class C> __device__ C operator()(C a, C b, C alpha) const { return a - alpha * b; }
};
struct Mul {
  template <class C> __device__ C operator()(C a, C b, C) const { return a * b; }
};
struct TrueDiv {
  template <class C> __device__ C operator()(C a, C b, C) const { return a / b; }
};
struct Maximum {  // a NaN on either side wins, as torch.maximum
  template <class C> __device__ C operator()(C a, C b, C) const {
    return a != a ? a : (b != b ? b : (a > b ? a : b));
  }
};
struct Minimum {
  template <class C> __device__ C operator()(C a, C b, C) const {
    return a != a ? a : (b != b ? b : (a < b ? a : b));
  }
};

template <class S, int NIn, class F>
__global__ void map_kernel(F f, const __grid_constant__ Launch l) {
  using C = typename Opmath<S>::type;
  const C alpha = C(l.alpha);
  const int64_t step = int64_t(blockDim.x) * gridDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < l.numel; i += step) {
    int64_t off[NIn + 1];
    strided_offsets(l, i, off);
    const auto in = [&](int k) { return C(*reinterpret_cast<const S*>(l.base[k + 1] + off[k + 1])); };
    C r;
    if constexpr (NIn == 1) {
      r = f(in(0));
    } else {
      r = f(in(0), in(1), alpha);
    }
    *reinterpret_cast<S*>(l.base[0] + off[0]) = S(r);
  }
}

template <class S, int NIn, class F>
int go(F f, const Launch& l, cudaStream_t stream) {
  map_kernel<S, NIn><<<l.blocks, l.threads, 0, stream>>>(f, l);
  return int(cudaGetLastError());
}

template <class S>
int launch_typed(const Launch& l, cudaStream_t s) {
  switch (l.op) {
    case Op::neg: return go<S, 1>(Neg{}, l, s);
    case Op::abs: return go<S, 1>(Abs{}, l, s);
    case Op::sqrt: return go<S, 1>(Sqrt{}, l, s);
    case Op::rsqrt: return go<S, 1>(Rsqrt{}, l, s);
    case Op::square: return go<S, 1>(Square{}, l, s);
    case Op::reciprocal: return go<S, 1>(Reciprocal{}, l, s);
    case Op::exp: return go<S, 1>(Exp{}, l, s);
    case Op::log: return go<S, 1>(Log{}, l, s);
    case Op::sin: return go<S, 1>(Sin{}, l, s);
    case Op::cos: return go<S, 1>(Cos{}, l, s);
    case Op::tanh: return go<S, 1>(Tanh{}, l, s);
    case Op::sigmoid: return go<S, 1>(Sigmoid{}, l, s);
    case Op::relu: return go<S, 1>(Relu{}, l, s);
    case Op::add: return go<S, 2>(Add{}, l, s);
    case Op::sub: return go<S, 2>(Sub{}, l, s);
    case Op::mul: return go<S, 2>(Mul{}, l, s);
    case Op::true_div: return go<S, 2>(TrueDiv{}, l, s);
    case Op::maximum: return go<S, 2>(Maximum{}, l, s);
    case Op::minimum: return go<S, 2>(Minimum{}, l, s);
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace

int launch_elementwise(const Launch& l, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (l.type) {
    case Type::float32: return launch_typed<float>(l, s);
    case Type::float64: return launch_typed<double>(l, s);
    case Type::float16: return launch_typed<__half>(l, s);
    case Type::bfloat16: return launch_typed<__nv_bfloat16>(l, s);
    default: break;  // the plan only asks for the floating types
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace ember::cuda::kernels
