// SGD: its options and its step's front end; the fused update (PyTorch's _single_tensor_sgd) is
// each device's OptimKernels::sgd (backend/cpu/optim_sgd.cpp on the CPU).
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
    detail::update_kernel(name(), {&p, &grad, &buf}, &backend::OptimKernels::sgd)(
        p, grad, buf,
        {.lr = lr, .weight_decay = wd, .momentum = momentum, .dampening = dampening,
         .nesterov = nesterov, .maximize = maximize, .first = first});
    detail::mark_updated(p);
  }
}

}  // namespace ember::optim
