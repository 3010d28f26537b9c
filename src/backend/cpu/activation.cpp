// CPU kernels of the pointwise activations (src/ops/activation.cpp). Formulas follow PyTorch's
// CPU kernels so results agree to float rounding.
#include <cmath>

#include "backend/cpu/elementwise.h"
#include "backend/cpu/exp_float.h"
#include "backend/cpu/gelu_float.h"
#include "backend/cpu/kernels.h"

namespace EMBER_CPU_NS {
namespace {

using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;

inline constexpr auto sigmoid_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    return V(1) / (V(1) + exp_fast(-x));
  };
};

// relu and hardtanh are PyTorch's clamps: bound first, so x wins ties (relu(-0.0) is -0.0).
inline constexpr auto relu_fn = []<class T>() {
  return [](auto x) { return vmax(decltype(x)(0), x); };
};

void hardtanh(const ElementwiseCall& c) {
  const double lo = c.args.real[0], hi = c.args.real[1];
  run_elementwise<K::hardtanh, kNumeric, 1>(c, [lo, hi]<class T>() {
    return [l = T(lo), h = T(hi)](auto x) {
      using V = decltype(x);
      return vmin(V(h), vmax(V(l), x));
    };
  });
}

// PyTorch's threshold_backward(grad, self, threshold): nothing passes where self <= threshold.
void threshold_backward(const ElementwiseCall& c) {
  const double threshold = c.args.real[0];
  run_elementwise<K::threshold_backward, kFloating, 2>(c, [threshold]<class T>() {
    return [t = T(threshold)](auto g, auto x) {
      using V = decltype(g);
      return select(le(x, V(t)), V(0), g);
    };
  });
}

void logit(const ElementwiseCall& c) {
  const double lo_bound = c.args.real[0], hi_bound = c.args.real[1];
  const bool clamp = c.args.flag;
  run_elementwise<K::logit, kFloating, 1>(c, [=]<class T>() {
    return [lo = T(lo_bound), hi = T(hi_bound), clamp](T x) -> T {
      const T z = clamp ? (x < lo ? lo : x > hi ? hi : x) : x;
      return std::log(z / (T(1) - z));
    };
  });
}

void leaky_relu(const ElementwiseCall& c) {
  const double negative_slope = c.args.real[0];
  run_elementwise<K::leaky_relu, kFloating, 1>(c, [negative_slope]<class T>() {
    return [s = T(negative_slope)](auto x) {
      using V = decltype(x);
      return select(gt(x, V(0)), x, x * V(s));
    };
  });
}

void elu(const ElementwiseCall& c) {
  // Named copies, not a structured binding: Clang 14 cannot capture a binding in a lambda.
  const double alpha_scale = c.args.real[0], scale = c.args.real[1], input_scale = c.args.real[2];
  run_elementwise<K::elu, kFloating, 1>(c, [=]<class T>() {
    return [a = T(alpha_scale), s = T(scale), is = T(input_scale)](auto x) {
      using V = decltype(x);
      // exp - 1 rather than expm1, as PyTorch's kernel (elu(-0.0) is +0.0).
      return select(gt(x, V(0)), x * V(s), (cpu::exp(x * V(is)) - V(1)) * V(a));
    };
  });
}

inline constexpr auto gelu_tanh_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    if constexpr (std::is_same_v<T, float>) {
      return cpu::gelu_tanh_float(x);  // x * sigmoid(2y): one exp instead of SLEEF's tanh
    } else {
      const V k(T(0.7978845608028654)), c(T(0.044715));  // sqrt(2/pi)
      return V(T(0.5)) * x * (V(1) + cpu::tanh(k * (x + c * x * x * x)));
    }
  };
};

inline constexpr auto gelu_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    // float (and half, computed in float): x * Phi(x) without erf (Note [Fast gelu]).
    if constexpr (std::is_same_v<T, float>) return cpu::gelu_float(x);
    else return V(T(0.5)) * x * (V(1) + cpu::erf(x * V(T(0.7071067811865476))));
  };
};

inline constexpr auto silu_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    return x / (V(1) + exp_fast(-x));
  };
};

inline constexpr auto mish_fn = []<class T>() {
  return [](auto x) { return x * cpu::tanh(cpu::log1p(cpu::exp(x))); };
};

void softplus(const ElementwiseCall& c) {
  const double beta = c.args.real[0], threshold = c.args.real[1];
  run_elementwise<K::softplus, kFloating, 1>(c, [=]<class T>() {
    return [b = T(beta), th = T(threshold)](auto x) {
      using V = decltype(x);
      return select(gt(x * V(b), V(th)), x, cpu::log1p(cpu::exp(x * V(b))) / V(b));
    };
  });
}

inline constexpr auto hardsigmoid_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    return vmin(vmax(x + V(3), V(0)), V(6)) / V(6);
  };
};

inline constexpr auto hardswish_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    return x * vmin(vmax(x + V(3), V(0)), V(6)) / V(6);
  };
};

// PyTorch's hardshrink: 0 on [-lambd, lambd], x elsewhere (a NaN passes). Half types compare in
// float against lambd as a float, PyTorch's against lambd rounded to the half type: the same for
// every lambd the half type holds exactly.
void hardshrink(const ElementwiseCall& c) {
  const double lambd = c.args.real[0];
  run_elementwise<K::hardshrink, kFloating, 1>(c, [lambd]<class T>() {
    return [l = T(lambd)](auto x) {
      using V = decltype(x);
      return select(ge(x, V(-l)), select(le(x, V(l)), V(0), x), x);
    };
  });
}

}  // namespace

void add_activation_kernels(backend::Backend& b) {
  set_entry<K::sigmoid, kFloating, 1, sigmoid_fn>(b);
  set_entry<K::relu, kNumeric, 1, relu_fn>(b);
  b[K::logit] = &logit;
  b[K::leaky_relu] = &leaky_relu;
  b[K::elu] = &elu;
  set_entry<K::gelu, kFloating, 1, gelu_fn>(b);
  set_entry<K::gelu_tanh, kFloating, 1, gelu_tanh_fn>(b);
  set_entry<K::silu, kFloating, 1, silu_fn>(b);
  set_entry<K::mish, kFloating, 1, mish_fn>(b);
  b[K::softplus] = &softplus;
  b[K::hardtanh] = &hardtanh;
  set_entry<K::hardsigmoid, kFloating, 1, hardsigmoid_fn>(b);
  set_entry<K::hardswish, kFloating, 1, hardswish_fn>(b);
  b[K::hardshrink] = &hardshrink;
  b[K::threshold_backward] = &threshold_backward;
}

}  // namespace EMBER_CPU_NS
