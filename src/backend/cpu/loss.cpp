// CPU kernels of the losses (src/ops/loss.cpp): the pointwise ones.
#include "backend/cpu/elementwise.h"
#include "backend/cpu/kernels.h"

namespace EMBER_CPU_NS {
namespace {

using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;

inline constexpr auto mse_fn = []<class T>() {
  return [](auto x, auto y) { return (x - y) * (x - y); };
};

void smooth_l1(const ElementwiseCall& c) {
  const double beta = c.args.real[0];
  run_elementwise<K::smooth_l1_loss, kFloating, 2>(c, [beta]<class T>() {
    return [bt = T(beta)](auto x, auto y) {
      using V = decltype(x);
      const V z = cpu::abs(x - y);
      return select(lt(z, V(bt)), V(T(0.5)) * z * z / V(bt), z - V(T(0.5) * bt));
    };
  });
}

void huber(const ElementwiseCall& c) {
  const double delta = c.args.real[0];
  run_elementwise<K::huber_loss, kFloating, 2>(c, [delta]<class T>() {
    return [d = T(delta)](auto x, auto y) {
      using V = decltype(x);
      const V z = cpu::abs(x - y);
      return select(lt(z, V(d)), V(T(0.5)) * z * z, V(d) * (z - V(T(0.5) * d)));
    };
  });
}

// -(t log x + (1 - t) log(1 - x)) with each log clamped at -100, as PyTorch's CPU kernel.
inline constexpr auto bce_fn = []<class T>() {
  return [](auto x, auto t) {
    using V = decltype(x);
    const V lo(T(-100));
    return (t - V(T(1))) * vmax(cpu::log1p(-x), lo) - t * vmax(cpu::log(x), lo);
  };
};

// Stable in x: with m = max(-x, 0), log(1 + e^-x) = log(e^-m + e^(-x-m)) + m; the weighted
// form scales the positive term by lw = 1 + (pos_weight - 1) t.
inline constexpr auto bce_logits_fn = []<class T>() {
  return [](auto x, auto t) {
    using V = decltype(x);
    const V m = vmax(-x, V(T(0)));
    return (V(T(1)) - t) * x + m + cpu::log(cpu::exp(-m) + cpu::exp(-x - m));
  };
};
inline constexpr auto bce_logits_weighted_fn = []<class T>() {
  return [](auto x, auto t, auto lw) {
    using V = decltype(x);
    const V m = vmax(-x, V(T(0)));
    return (V(T(1)) - t) * x + lw * (cpu::log(cpu::exp(-m) + cpu::exp(-x - m)) + m);
  };
};

}  // namespace

void add_loss_kernels(backend::Backend& b) {
  set_entry<K::mse_loss, kFloating, 2, mse_fn>(b);
  b[K::smooth_l1_loss] = &smooth_l1;
  b[K::huber_loss] = &huber;
  set_entry<K::binary_cross_entropy, kFloating, 2, bce_fn>(b);
  set_entry<K::binary_cross_entropy_with_logits, kFloating, 2, bce_logits_fn>(b);
  set_entry<K::binary_cross_entropy_with_logits_weighted, kFloating, 3, bce_logits_weighted_fn>(b);
}

}  // namespace EMBER_CPU_NS
