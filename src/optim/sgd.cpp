// SGD's update, fused: one pass reads param, grad and the momentum buffer and writes param and
// buffer. The arithmetic follows PyTorch's _single_tensor_sgd step by step:
//   d = ±grad + wd * p;  buf = first ? d : momentum * buf + (1 - dampening) * d
//   d = nesterov ? d + momentum * buf : buf;  p -= lr * d
#include "ember/optim/sgd.h"

#include "core/op_entry.h"
#include "optim/fused.h"
#include "optim/group_options.h"

namespace ember::optim {

Dict resolve_options(const SGDOptions& g, const SGDOptions& d) {
  detail::GroupOptionsBuilder b("optim.SGD");
  const double lr = b.add("lr", g.lr, d.lr, std::nullopt);
  const double momentum = b.add("momentum", g.momentum, d.momentum, {0.0}, true);
  const double dampening = b.add("dampening", g.dampening, d.dampening, {0.0}, true);
  const double wd = b.add("weight_decay", g.weight_decay, d.weight_decay, {0.0}, true);
  const bool nesterov = b.add("nesterov", g.nesterov, d.nesterov, {false});
  b.add("maximize", g.maximize, d.maximize, {false});
  b.fixed("foreach", Value());
  b.fixed("differentiable", false);
  EMBER_CHECK(lr >= 0, "optim.SGD", "Invalid learning rate: ", lr);
  EMBER_CHECK(momentum >= 0, "optim.SGD", "Invalid momentum value: ", momentum);
  EMBER_CHECK(wd >= 0, "optim.SGD", "Invalid weight_decay value: ", wd);
  EMBER_CHECK(!nesterov || (momentum > 0 && dampening == 0), "optim.SGD",
              "Nesterov momentum requires a momentum and zero dampening");
  return b.finish();
}

namespace {

template <class T>
void sgd_kernel(T* p, const T* g, T* buf, int64_t n, T lr, T wd, T momentum, double dampening,
                bool nesterov, bool maximize, bool first) {
  const T one_minus_damp = T(1 - dampening);  // rounded once, as PyTorch's alpha=1 - dampening
  detail::fused_for<T>(n, [&]<class V>(int64_t i) {
    V pi = detail::load<V>(p + i);
    V d = detail::load<V>(g + i);
    if (maximize) d = -d;
    if (wd != T(0)) d = d + wd * pi;
    if (buf) {
      V b = first ? d : detail::load<V>(buf + i) * momentum + one_minus_damp * d;
      detail::store(buf + i, b);
      d = nesterov ? d + momentum * b : b;
    }
    detail::store(p + i, pi + (-lr) * d);
  });
}

}  // namespace

void SGD::update(ParamGroup& group) {
  const double lr = group.lr(), momentum = group.get("momentum"),
               dampening = group.get("dampening"), wd = group.get("weight_decay");
  const bool nesterov = group.get_bool("nesterov"), maximize = group.get_bool("maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    detail::check_param(name(), p);
    Tensor grad = detail::dense_grad(name(), p);
    Dict& st = state(p);
    Value& slot = st[Value("momentum_buffer")];  // None until momentum makes a buffer
    bool first = false;
    if (momentum != 0 && slot.is_none()) {
      slot = Value(detail::zeros_like_param(p));
      first = true;
    }
    Tensor buf = slot.is_tensor() ? slot.to_tensor() : Tensor();
    if (buf.defined()) detail::check_state(name(), buf, p, "momentum_buffer");
    OpScope scope("sgd_update", {&p, &grad, &buf});
    detail::dispatch_float(name(), p.dtype(), [&]<class T>() {
      sgd_kernel<T>(p.data_ptr<T>(), grad.data_ptr<T>(), buf.defined() ? buf.data_ptr<T>() : nullptr,
                    p.numel(), T(lr), T(wd), T(momentum), dampening, nesterov, maximize, first);
    });
    detail::mark_updated(p);
  }
}

}  // namespace ember::optim
