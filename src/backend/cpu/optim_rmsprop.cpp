// RMSprop's and Adagrad's fused updates (src/optim/rmsprop.cpp is their front end), in
// PyTorch's _single_tensor_* operation order:
//   RMSprop: sq = alpha*sq + (1-alpha)*g*g; avg = sqrt(sq [- ga*ga]) + eps;
//            momentum ? (buf = momentum*buf + g/avg; p -= lr*buf) : p -= lr * g/avg
//   Adagrad: sum += g*g; p -= clr * g / (sqrt(sum) + eps), clr = lr / (1 + (step-1)*lr_decay)
#include "backend/cpu/optim_loop.h"

namespace EMBER_CPU_NS {
namespace {

template <class T>
void rmsprop_kernel(T* p, const T* g, T* sq, T* ga, T* buf, int64_t n,
                    const backend::RMSpropStep& st) {
  // 1 - alpha in double, rounded once, as PyTorch computes it in Python.
  const T alpha = T(st.alpha), one_minus_alpha = T(1 - st.alpha);
  const T lr = T(st.lr), eps = T(st.eps), l2 = T(st.l2), momentum = T(st.momentum);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    const V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (st.maximize) gi = -gi;
    if (l2 != T(0)) gi = gi + l2 * pi;
    const V si = load<V>(sq + i) * alpha + one_minus_alpha * gi * gi;
    store(sq + i, si);
    V avg;
    if (ga) {  // centered: subtract the squared mean gradient (addcmul with value -1)
      const V gai = load<V>(ga + i) * alpha + one_minus_alpha * gi;
      store(ga + i, gai);
      avg = sqrt(si + T(-1) * gai * gai);
    } else {
      avg = sqrt(si);
    }
    avg = avg + eps;
    if (buf) {
      const V bi = load<V>(buf + i) * momentum + gi / avg;
      store(buf + i, bi);
      store(p + i, pi + (-lr) * bi);
    } else {
      store(p + i, pi + (-lr) * (gi / avg));
    }
  });
}

template <class T>
void adagrad_kernel(T* p, const T* g, T* sum, int64_t n, const backend::AdagradStep& st) {
  const T neg_clr = T(st.neg_clr), l2 = T(st.l2), eps = T(st.eps);
  fused_for<T>(n, [&]<class V>(int64_t i) {
    const V pi = load<V>(p + i);
    V gi = load<V>(g + i);
    if (st.maximize) gi = -gi;
    if (l2 != T(0)) gi = gi + l2 * pi;
    const V si = load<V>(sum + i) + gi * gi;
    store(sum + i, si);
    store(p + i, pi + neg_clr * (gi / (sqrt(si) + eps)));
  });
}

}  // namespace

void rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                    const Tensor& grad_avg, const Tensor& momentum_buffer,
                    const backend::RMSpropStep& s) {
  dispatch_param("optim.RMSprop", param.dtype(), [&]<class T>() {
    rmsprop_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), square_avg.data_ptr<T>(),
                      data_or_null<T>(grad_avg), data_or_null<T>(momentum_buffer), param.numel(),
                      s);
  });
}

void adagrad_update(const Tensor& param, const Tensor& grad, const Tensor& sum,
                    const backend::AdagradStep& s) {
  dispatch_param("optim.Adagrad", param.dtype(), [&]<class T>() {
    adagrad_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), sum.data_ptr<T>(), param.numel(), s);
  });
}

}  // namespace EMBER_CPU_NS
