// Pointwise activations: sigmoid, logit, relu family, elu/selu, gelu (exact and tanh), silu,
// mish, softplus, hardtanh, hardsigmoid, hardswish. Formulas follow PyTorch's CPU kernels so
// results agree to float rounding.
#include <cmath>

#include "ember/math.h"
#include "ops/elementwise.h"

namespace ember {
namespace {

using cpu::gt;
using cpu::select;
using cpu::vmax;
using cpu::vmin;

// Floating inputs only: PyTorch has no integer kernels for these ("not implemented for 'Long'").
template <class Make>
Tensor activation(const char* op, const Tensor& t, const Make& make,
                  const Tensor* target = nullptr) {
  return elementwise<Promote::Default, DtypeSet::Floating>(op, {t}, make, target);
}
// sigmoid and logit are unary float ops: integer inputs give the default float dtype.
template <class Make>
Tensor float_activation(const char* op, const Tensor& t, const Make& make,
                        const Tensor* target = nullptr) {
  return elementwise<Promote::IntToFloat, DtypeSet::Floating>(op, {t}, make, target);
}

inline constexpr auto sigmoid_fn = []<class T>() {
  return [](auto x) {
    using V = decltype(x);
    return V(1) / (V(1) + cpu::exp(-x));
  };
};

// relu and hardtanh are PyTorch's clamps: bound first, so x wins ties (relu(-0.0) is -0.0).
inline constexpr auto relu_fn = []<class T>() {
  return [](auto x) { return vmax(decltype(x)(0), x); };
};

auto hardtanh_fn(double lo, double hi) {
  return [lo, hi]<class T>() {
    return [l = T(lo), h = T(hi)](auto x) {
      using V = decltype(x);
      return vmin(V(h), vmax(V(l), x));
    };
  };
}

}  // namespace

Tensor sigmoid(const Tensor& t) { return float_activation("sigmoid", t, sigmoid_fn); }

Tensor logit(const Tensor& t, std::optional<double> eps) {
  return float_activation("logit", t, [eps]<class T>() {
    const T lo = eps ? T(*eps) : T(0), hi = eps ? T(1 - *eps) : T(1);
    const bool clamp = eps.has_value();
    return [lo, hi, clamp](T x) -> T {
      const T z = clamp ? (x < lo ? lo : x > hi ? hi : x) : x;
      return std::log(z / (T(1) - z));
    };
  });
}

Tensor relu(const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool, "relu", "not implemented for dtype ", t.dtype());
  return elementwise<Promote::Default, DtypeSet::Numeric>("relu", {t}, relu_fn);
}

Tensor relu6(const Tensor& t) { return hardtanh(t, 0.0, 6.0); }

Tensor leaky_relu(const Tensor& t, double negative_slope) {
  return activation("leaky_relu", t, [negative_slope]<class T>() {
    return [s = T(negative_slope)](auto x) {
      using V = decltype(x);
      return select(gt(x, V(0)), x, x * V(s));
    };
  });
}

Tensor elu(const Tensor& t, double alpha, double scale, double input_scale) {
  return activation("elu", t, [=]<class T>() {
    return [a = T(alpha * scale), s = T(scale), is = T(input_scale)](auto x) {
      using V = decltype(x);
      // exp - 1 rather than expm1, as PyTorch's kernel (elu(-0.0) is +0.0).
      return select(gt(x, V(0)), x * V(s), (cpu::exp(x * V(is)) - V(1)) * V(a));
    };
  });
}

Tensor selu(const Tensor& t) {
  return elu(t, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946);
}

Tensor gelu(const Tensor& t, GeluOptions options) {
  if (options.approximate == "tanh") {
    return activation("gelu", t, []<class T>() {
      return [](auto x) {
        using V = decltype(x);
        const V k(T(0.7978845608028654)), c(T(0.044715));  // sqrt(2/pi)
        return V(T(0.5)) * x * (V(1) + cpu::tanh(k * (x + c * x * x * x)));
      };
    });
  }
  EMBER_CHECK(options.approximate == "none", "gelu",
              "approximate argument must be either none or tanh, got '", options.approximate, "'");
  return activation("gelu", t, []<class T>() {
    return [](auto x) {
      using V = decltype(x);
      return V(T(0.5)) * x * (V(1) + cpu::erf(x * V(T(0.7071067811865476))));
    };
  });
}

Tensor silu(const Tensor& t) {
  return activation("silu", t, []<class T>() {
    return [](auto x) {
      using V = decltype(x);
      return x / (V(1) + cpu::exp(-x));
    };
  });
}

Tensor mish(const Tensor& t) {
  return activation("mish", t, []<class T>() {
    return [](auto x) { return x * cpu::tanh(cpu::log1p(cpu::exp(x))); };
  });
}

Tensor softplus(const Tensor& t, double beta, double threshold) {
  return activation("softplus", t, [=]<class T>() {
    return [b = T(beta), th = T(threshold)](auto x) {
      using V = decltype(x);
      return select(gt(x * V(b), V(th)), x, cpu::log1p(cpu::exp(x * V(b))) / V(b));
    };
  });
}

Tensor hardtanh(const Tensor& t, double min_val, double max_val) {
  EMBER_CHECK(t.dtype() != kUInt8 || (min_val >= 0 && max_val >= 0), "hardtanh",
              "cannot do hardtanh on an unsigned type with negative limits");
  return elementwise<Promote::Default, DtypeSet::Numeric>("hardtanh", {t},
                                                          hardtanh_fn(min_val, max_val));
}

Tensor hardsigmoid(const Tensor& t) {
  return activation("hardsigmoid", t, []<class T>() {
    return [](auto x) {
      using V = decltype(x);
      return vmin(vmax(x + V(3), V(0)), V(6)) / V(6);
    };
  });
}

Tensor hardswish(const Tensor& t) {
  return activation("hardswish", t, []<class T>() {
    return [](auto x) {
      using V = decltype(x);
      return x * vmin(vmax(x + V(3), V(0)), V(6)) / V(6);
    };
  });
}

Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor& Tensor::sigmoid_() {
  float_activation("sigmoid_", *this, sigmoid_fn, this);
  return *this;
}
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor& Tensor::relu_() {
  elementwise<Promote::Default, DtypeSet::Numeric>("relu_", {*this}, relu_fn, this);
  return *this;
}

}  // namespace ember
