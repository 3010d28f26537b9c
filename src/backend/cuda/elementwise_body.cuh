// The elementwise kernels' work, for the device (elementwise.cu) and the CPU emulation
// (elementwise_emulation.cpp) alike: one functor per Op, and the block body that maps one over
// the strided layout of elementwise_launch.h in a grid-stride loop, float16/bfloat16 loaded
// into float32 and rounded once on the store (PyTorch's opmath); masked_fill and where on the
// integer and bool types select stored values (SelectBody).
#pragma once

#include <cstdint>
#include <utility>

#include "backend/cuda/block.cuh"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

// ── functors: unary ones take x, binary ones (a, b, alpha) ──────────────────────────────────
struct Neg {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return -x;
  }
};
struct Abs {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::fabs(x);
  }
};
struct Sqrt {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::sqrt(x);
  }
};
struct Rsqrt {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::rsqrt(x);
  }
};
struct Square {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return x * x;
  }
};
struct Reciprocal {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return C(1) / x;
  }
};
struct Exp {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::exp(x);
  }
};
struct Log {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::log(x);
  }
};
struct Sin {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::sin(x);
  }
};
struct Cos {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::cos(x);
  }
};
struct Tanh {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return math::tanh(x);
  }
};
struct Sigmoid {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return C(1) / (C(1) + math::exp(-x));
  }
};
struct Relu {  // NaN stays NaN (x < 0 is false for it), as torch.relu
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return x < C(0) ? C(0) : x;
  }
};
// a ± alpha * b as one fma: what nvcc's contraction (--fmad=true, its default) makes of it
// anyway, spelled out so the emulation rounds once too (it is compiled with -ffp-contract=off).
struct Add {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C alpha) const {
    return math::fma(alpha, b, a);
  }
};
struct Sub {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C alpha) const {
    return math::fma(-alpha, b, a);
  }
};
struct Mul {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C) const {
    return a * b;
  }
};
struct TrueDiv {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C) const {
    return a / b;
  }
};
struct Maximum {  // a NaN on either side wins, as torch.maximum
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C) const {
    return a != a ? a : (b != b ? b : (a > b ? a : b));
  }
};
struct Minimum {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b, C) const {
    return a != a ? a : (b != b ? b : (a < b ? a : b));
  }
};

// masked_fill's (x, mask, value): the front end converts the mask to x's dtype (nonzero: fill).
// value goes through the compute type, as PyTorch's CUDA kernel reads it as its scalar_t.
struct MaskedFill {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x, C mask, C value) const {
    return mask != C(0) ? value : x;
  }
};

// ── ternary: where(condition, x, y), the condition in the compute dtype ─────────────────────
struct Where {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C condition, C x, C y) const {
    return condition != C(0) ? x : y;
  }
};

template <int N>
using Arity = std::integral_constant<int, N>;

/// Calls f(functor, Arity<inputs>{}) for `op`; false (f not called) for an unknown op.
template <class F>
bool with_op(Op op, F&& f) {
  switch (op) {
    case Op::neg:
      f(Neg{}, Arity<1>{});
      return true;
    case Op::abs:
      f(Abs{}, Arity<1>{});
      return true;
    case Op::sqrt:
      f(Sqrt{}, Arity<1>{});
      return true;
    case Op::rsqrt:
      f(Rsqrt{}, Arity<1>{});
      return true;
    case Op::square:
      f(Square{}, Arity<1>{});
      return true;
    case Op::reciprocal:
      f(Reciprocal{}, Arity<1>{});
      return true;
    case Op::exp:
      f(Exp{}, Arity<1>{});
      return true;
    case Op::log:
      f(Log{}, Arity<1>{});
      return true;
    case Op::sin:
      f(Sin{}, Arity<1>{});
      return true;
    case Op::cos:
      f(Cos{}, Arity<1>{});
      return true;
    case Op::tanh:
      f(Tanh{}, Arity<1>{});
      return true;
    case Op::sigmoid:
      f(Sigmoid{}, Arity<1>{});
      return true;
    case Op::relu:
      f(Relu{}, Arity<1>{});
      return true;
    case Op::add:
      f(Add{}, Arity<2>{});
      return true;
    case Op::sub:
      f(Sub{}, Arity<2>{});
      return true;
    case Op::mul:
      f(Mul{}, Arity<2>{});
      return true;
    case Op::true_div:
      f(TrueDiv{}, Arity<2>{});
      return true;
    case Op::maximum:
      f(Maximum{}, Arity<2>{});
      return true;
    case Op::minimum:
      f(Minimum{}, Arity<2>{});
      return true;
    case Op::masked_fill:
      f(MaskedFill{}, Arity<2>{});
      return true;
    case Op::where:
      f(Where{}, Arity<3>{});
      return true;
  }
  return false;
}

/// One block's share of out = f(in...) over l's layout, S the storage type, NIn 1, 2 or 3.
template <class S, int NIn, class F>
struct MapBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const Launch& l) {
    const F f{};  // the functors hold no state
    using C = opmath_t<S>;
    const C alpha = C(l.alpha);
    each_strided<NIn + 1>(b, l, [&](char* const* at) {
      const auto in = [&](int k) { return C(*reinterpret_cast<const S*>(at[k + 1])); };
      C r;
      if constexpr (NIn == 1) {
        r = f(in(0));
      } else if constexpr (NIn == 2) {
        r = f(in(0), in(1), alpha);
      } else {
        r = f(in(0), in(1), in(2));
      }
      *reinterpret_cast<S*>(at[0]) = S(r);
    });
  }
};

/// One block's share of masked_fill (NIn 2: x, mask) or where (NIn 3: condition, x, y) on an
/// integer or bool storage type S: a selection of stored values, nothing computed, the fill value
/// taken from l.integer (exact for every int64).
template <class S, int NIn>
struct SelectBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const Launch& l) {
    const S value = S(l.integer);
    each_strided<NIn + 1>(b, l, [&](char* const* at) {
      const auto in = [&](int k) { return *reinterpret_cast<const S*>(at[k + 1]); };
      S r;
      if constexpr (NIn == 2)
        r = in(1) != S(0) ? value : in(0);
      else
        r = in(0) != S(0) ? in(1) : in(2);
      *reinterpret_cast<S*>(at[0]) = r;
    });
  }
};

/// The body of l (launch.cuh): l's op on one of the four floating types, or masked_fill and where
/// on int32, int64 or bool.
template <class G>
bool with_body(const Launch& l, G&& g) {
  bool found = false;
  with_floating_type(l.type, [&](auto type) {
    found = with_op(l.op, [&](auto f, auto arity) {
      g(Tag<MapBody<typename decltype(type)::type, decltype(arity)::value, decltype(f)>>{});
    });
  });
  if (found || (l.op != Op::masked_fill && l.op != Op::where)) return found;
  return with_type_among<int32_t, int64_t, bool>(l.type, [&](auto type) {
    using S = typename decltype(type)::type;
    if (l.op == Op::masked_fill)
      g(Tag<SelectBody<S, 2>>{});
    else
      g(Tag<SelectBody<S, 3>>{});
  });
}

}  // namespace ember::cuda::kernels
