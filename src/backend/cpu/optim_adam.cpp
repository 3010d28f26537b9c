// The Adam family's updates, fused (src/optim/adam.cpp is the front end): each reads param,
// grad and the moment buffers once and writes them once, with the step's scalars computed by
// the front end in double and rounded here once, and the elementwise arithmetic in PyTorch's
// operation order (mul_ then add_ with alpha, addcmul, addcdiv), so trajectories match
// PyTorch's to rounding.
#include <utility>

#include "backend/cpu/optim_loop.h"

namespace EMBER_CPU_NS {
namespace {

// Adam's two moments, shared by Adam/AdamW, NAdam and RAdam in PyTorch's operation order:
// m = m * beta1 + (1 - beta1) g, v = v * beta2 + (1 - beta2) g g; both written back.
template <class T>
struct TwoMoments {
  T beta1, beta2, one_minus_beta1, one_minus_beta2;
  TwoMoments(double b1, double b2) : beta1(T(b1)), beta2(T(b2)), one_minus_beta1(T(1 - b1)),
                                     one_minus_beta2(T(1 - b2)) {}

  template <class V>
  std::pair<V, V> update(T* m, T* v, int64_t i, V g) const {
    const V mi = load<V>(m + i) * beta1 + one_minus_beta1 * g;
    const V vi = load<V>(v + i) * beta2 + one_minus_beta2 * g * g;
    store(m + i, mi);
    store(v + i, vi);
    return {mi, vi};
  }
};

// ── Adam / AdamW ─────────────────────────────────────────────────────────
template <class T>
void adam_kernel(T* p, const T* g, T* m, T* v, T* vmax_buf, int64_t n,
                 const backend::AdamStep& st) {
  const TwoMoments<T> moments(st.beta1, st.beta2);
  const T l2 = T(st.l2), decay = T(st.decay), bc2_sqrt = T(st.bc2_sqrt), eps = T(st.eps);
  const T neg_step_size = T(st.neg_step_size);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (st.maximize) gi = -gi;
    if (st.decoupled) pi = pi * decay;
    if (l2 != T(0)) gi = gi + l2 * pi;
    const auto [mi, vi] = moments.update(m, v, i, gi);
    V denom_of = vi;
    if (vmax_buf) {  // amsgrad: normalise by the largest second moment seen so far
      denom_of = vmax(load<V>(vmax_buf + i), vi);
      store(vmax_buf + i, denom_of);
    }
    const V denom = sqrt(denom_of) / bc2_sqrt + eps;
    store(p + i, pi + neg_step_size * (mi / denom));
  });
}

// ── Adamax ───────────────────────────────────────────────────────────────
template <class T>
void adamax_kernel(T* p, const T* g, T* m, T* u, int64_t n, const backend::AdamaxStep& st) {
  // 1 - beta in double, then rounded once, as PyTorch passes alpha=1 - beta1 to add_.
  const T beta1 = T(st.beta1), beta2 = T(st.beta2), one_minus_beta1 = T(1 - st.beta1);
  const T l2 = T(st.l2), eps = T(st.eps), neg_clr = T(st.neg_clr);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    const V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (st.maximize) gi = -gi;
    if (l2 != T(0)) gi = gi + l2 * pi;
    const V mi = load<V>(m + i) * beta1 + one_minus_beta1 * gi;
    // exp_inf = max(beta2 * exp_inf, |g| + eps), NaN-propagating like torch.amax
    const V ui = vmax(load<V>(u + i) * beta2, abs(gi) + eps);
    store(m + i, mi);
    store(u + i, ui);
    store(p + i, pi + neg_clr * (mi / ui));
  });
}

// ── NAdam ────────────────────────────────────────────────────────────────
template <class T>
void nadam_kernel(T* p, const T* g, T* m, T* v, int64_t n, const backend::NAdamStep& st) {
  const TwoMoments<T> moments(st.beta1, st.beta2);
  const T l2 = T(st.l2), eps = T(st.eps), bias_correction2 = T(st.bias_correction2);
  const T grad_coef = T(st.grad_coef), avg_coef = T(st.avg_coef);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (l2 != T(0)) gi = gi + l2 * pi;
    const auto [mi, vi] = moments.update(m, v, i, gi);
    const V denom = sqrt(vi / bias_correction2) + eps;
    pi = pi + grad_coef * (gi / denom);  // two addcdiv_ calls in PyTorch, in this order
    store(p + i, pi + avg_coef * (mi / denom));
  });
}

// ── RAdam ────────────────────────────────────────────────────────────────
template <class T>
void radam_kernel(T* p, const T* g, T* m, T* v, int64_t n, const backend::RAdamStep& st) {
  const TwoMoments<T> moments(st.beta1, st.beta2);
  const T l2 = T(st.l2), eps = T(st.eps), bias_correction1 = T(st.bias_correction1);
  const T lr = T(st.lr), bc2_sqrt = T(st.bc2_sqrt), rect = T(st.rect);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    const V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (l2 != T(0)) gi = gi + l2 * pi;
    const auto [mi, vi] = moments.update(m, v, i, gi);
    const V corrected = mi / bias_correction1;
    if (st.rectify) {
      // PyTorch: sqrt(bc2) / (sqrt(v) + eps) is a scalar over a tensor: reciprocal, then times.
      const V adaptive = (V(T(1)) / (sqrt(vi) + eps)) * bc2_sqrt;
      store(p + i, pi - corrected * lr * adaptive * rect);
    } else {
      store(p + i, pi - corrected * lr);
    }
  });
}

}  // namespace

void adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                 const backend::AdamStep& s) {
  dispatch_param("optim.Adam", param.dtype(), [&]<class T>() {
    adam_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), exp_avg.data_ptr<T>(),
                   exp_avg_sq.data_ptr<T>(), data_or_null<T>(max_exp_avg_sq), param.numel(), s);
  });
}

void adamax_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                   const Tensor& exp_inf, const backend::AdamaxStep& s) {
  dispatch_param("optim.Adamax", param.dtype(), [&]<class T>() {
    adamax_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), exp_avg.data_ptr<T>(),
                     exp_inf.data_ptr<T>(), param.numel(), s);
  });
}

void nadam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const backend::NAdamStep& s) {
  dispatch_param("optim.NAdam", param.dtype(), [&]<class T>() {
    nadam_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), exp_avg.data_ptr<T>(),
                    exp_avg_sq.data_ptr<T>(), param.numel(), s);
  });
}

void radam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                  const Tensor& exp_avg_sq, const backend::RAdamStep& s) {
  dispatch_param("optim.RAdam", param.dtype(), [&]<class T>() {
    radam_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), exp_avg.data_ptr<T>(),
                    exp_avg_sq.data_ptr<T>(), param.numel(), s);
  });
}

}  // namespace EMBER_CPU_NS
