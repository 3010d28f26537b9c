// SGD's update, fused: one pass reads param, grad and the momentum buffer and writes param and
// buffer. The arithmetic follows PyTorch's _single_tensor_sgd step by step:
//   d = ±grad + wd * p;  buf = first ? d : momentum * buf + (1 - dampening) * d
//   d = nesterov ? d + momentum * buf : buf;  p -= lr * d
// Also the CPU backend's table of optimizer updates.
#include "backend/cpu/kernels.h"
#include "backend/cpu/optim_loop.h"

namespace EMBER_CPU_NS {
namespace {

template <class T>
void sgd_kernel(T* p, const T* g, T* buf, int64_t n, const backend::SgdStep& s) {
  const T lr = T(s.lr), wd = T(s.weight_decay), momentum = T(s.momentum);
  const T one_minus_damp = T(1 - s.dampening);  // rounded once, as PyTorch's alpha=1 - dampening
  fused_for<T>(n, [&]<class V>(int64_t i) {
    V pi = load<V>(p + i);
    V d = load<V>(g + i);
    if (s.maximize) d = -d;
    if (wd != T(0)) d = d + wd * pi;
    if (buf) {
      V b = s.first ? d : load<V>(buf + i) * momentum + one_minus_damp * d;
      store(buf + i, b);
      d = s.nesterov ? d + momentum * b : b;
    }
    store(p + i, pi + (-lr) * d);
  });
}

}  // namespace

void sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                const backend::SgdStep& s) {
  dispatch_param("optim.SGD", param.dtype(), [&]<class T>() {
    sgd_kernel<T>(param.data_ptr<T>(), grad.data_ptr<T>(), data_or_null<T>(momentum_buffer),
                  param.numel(), s);
  });
}

void add_optim_kernels(backend::Backend& b) {
  b.optim = {.sgd = &sgd_update,
             .adam = &adam_update,
             .adamax = &adamax_update,
             .nadam = &nadam_update,
             .radam = &radam_update,
             .rmsprop = &rmsprop_update,
             .adagrad = &adagrad_update};
}

}  // namespace EMBER_CPU_NS
