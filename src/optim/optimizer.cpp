// The Optimizer base: groups, per-parameter state, zero_grad/step, and state dicts laid out as
// PyTorch's (parameters numbered 0.. across groups in order; "state" holds only parameters that
// have stepped; load_state_dict deep-copies like PyTorch's deepcopy + cast).
#include "ember/optim/optimizer.h"

#include <string>
#include <string_view>
#include <unordered_set>

#include "ember/autograd.h"
#include "ember/error.h"
#include "profiler/recorder.h"

namespace ember::optim {
namespace {

// PyTorch's profiler labels: "Optimizer.step#AdamW.step", "Optimizer.zero_grad#AdamW.zero_grad".
uint64_t begin_profiled(const char* name, const char* method) {
  if (!profiler::detail::on()) return 0;
  std::string_view short_name = name;
  if (short_name.rfind("optim.", 0) == 0) short_name.remove_prefix(6);
  std::string label = std::string("Optimizer.") + method + "#";
  label.append(short_name).append(".").append(method);
  return profiler::detail::begin_range(profiler::EventKind::UserAnnotation, std::move(label));
}

struct ProfiledCall {
  uint64_t handle;
  ~ProfiledCall() { profiler::detail::end_range(handle); }
};

}  // namespace

double ParamGroup::get(const std::string& key) const {
  EMBER_CHECK(has_option(key), "optim", "parameter group has no option '", key, "'");
  return options_.at(Value(key)).to_double();
}

bool ParamGroup::get_bool(const std::string& key) const {
  EMBER_CHECK(has_option(key), "optim", "parameter group has no option '", key, "'");
  return options_.at(Value(key)).to_bool();
}

Betas ParamGroup::get_betas(const std::string& key) const {
  EMBER_CHECK(has_option(key), "optim", "parameter group has no option '", key, "'");
  const Value& v = options_.at(Value(key));
  // A tuple from PyTorch or a list after a round trip through another tool: both hold two numbers.
  const std::vector<Value>& items = v.is_tuple() ? v.to_tuple().items : v.to_list();
  EMBER_CHECK(items.size() == 2, "optim", "option '", key, "' must hold two values, got ",
              items.size());
  return {items[0].to_double(), items[1].to_double()};
}

double ParamGroup::lr() const { return get("lr"); }

void ParamGroup::set_lr(double lr) { options_.insert(Value("lr"), Value(lr)); }

void Optimizer::add_group(std::vector<Tensor> params, Dict options) {
  EMBER_CHECK(!params.empty(), name(), "optimizer got an empty parameter list");
  std::unordered_set<const TensorImpl*> seen;
  for (const ParamGroup& g : groups_)
    for (const Tensor& p : g.params()) seen.insert(p.impl());
  std::unordered_set<const TensorImpl*> mine;
  for (const Tensor& p : params) {
    EMBER_CHECK(p.defined(), name(), "parameters must be defined tensors");
    EMBER_CHECK(p.is_leaf() || p.retains_grad(), name(), "can't optimize a non-leaf Tensor");
    EMBER_CHECK(!seen.count(p.impl()), name(),
                "some parameters appear in more than one parameter group");
    EMBER_CHECK(mine.insert(p.impl()).second, name(),
                "parameter group contains the same parameter twice");
  }
  groups_.emplace_back(std::move(params), std::move(options));
}

void Optimizer::zero_grad(ZeroGradOptions options) {
  const ProfiledCall profiled{begin_profiled(name_, "zero_grad")};
  for (ParamGroup& g : groups_)
    for (Tensor& p : g.params()) {
      Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (options.set_to_none) {
        grad = Tensor();
      } else {
        // As PyTorch: the zeroed grad keeps no history, so the next backward accumulates into it.
        if (grad.grad_fn()) grad = grad.detach();
        grad.zero_();
      }
    }
}

Tensor Optimizer::step(const std::function<Tensor()>& closure) {
  const ProfiledCall profiled{begin_profiled(name_, "step")};
  return run_step(closure);
}

Tensor Optimizer::run_step(const std::function<Tensor()>& closure) {
  Tensor loss;
  if (closure) {
    EnableGradGuard enable;
    loss = closure();
  }
  NoGradGuard no_grad;
  for (ParamGroup& g : groups_) update(g);
  return loss;
}

Dict& Optimizer::state(const Tensor& p) { return state_[p.impl()]; }

Value Optimizer::state_dict() const {
  Dict state;
  List groups;
  int64_t index = 0;
  for (const ParamGroup& g : groups_) {
    Dict packed = Value(g.options()).clone().to_dict();
    List ids;
    for (const Tensor& p : g.params()) {
      auto it = state_.find(p.impl());
      if (it != state_.end() && !it->second.empty())
        state.insert(Value(index), Value(it->second).clone());
      ids.emplace_back(index++);
    }
    packed.insert(Value("params"), Value(std::move(ids)));
    groups.emplace_back(std::move(packed));
  }
  return Dict{{"state", Value(std::move(state))}, {"param_groups", Value(std::move(groups))}};
}

namespace {

// PyTorch's cast(): tensors are copied to the parameter's floating dtype, except "step".
Value copy_state_value(const Tensor& param, const Value& v, const std::string& key) {
  if (v.is_tensor()) {
    Tensor t = v.to_tensor().detach().clone();
    if (key != "step" && param.is_floating_point() && t.dtype() != param.dtype())
      t = t.to(param.dtype());
    return Value(t);
  }
  if (v.is_dict()) {
    Dict out;
    for (const auto& [k, x] : v.to_dict())
      out.insert(k, copy_state_value(param, x, k.is_string() ? k.to_string() : std::string()));
    return Value(std::move(out));
  }
  if (v.is_list()) {
    List out;
    for (const Value& x : v.to_list()) out.push_back(copy_state_value(param, x, ""));
    return Value(std::move(out));
  }
  if (v.is_tuple()) {
    Tuple out;
    for (const Value& x : v.to_tuple().items) out.items.push_back(copy_state_value(param, x, ""));
    return Value(std::move(out));
  }
  return v;
}

}  // namespace

void Optimizer::load_state_dict(const Value& state_dict) {
  const char* op = name();
  EMBER_CHECK(state_dict.is_dict(), op, "load_state_dict expects a Dict, got ",
              state_dict.kind_name());
  const Dict& sd = state_dict.to_dict();
  EMBER_CHECK(sd.contains(Value("state")) && sd.contains(Value("param_groups")), op,
              "load_state_dict expects the keys 'state' and 'param_groups'");
  const List& saved_groups = sd.at(Value("param_groups")).to_list();
  EMBER_CHECK(saved_groups.size() == groups_.size(), op,
              "loaded state dict has a different number of parameter groups (", saved_groups.size(),
              " vs ", groups_.size(), ")");
  // Saved ids -> our parameters, group by group in order (PyTorch's id_map).
  std::unordered_map<int64_t, Tensor> id_map;
  std::vector<Dict> new_options;
  for (size_t gi = 0; gi < groups_.size(); ++gi) {
    const Dict& saved = saved_groups[gi].to_dict();
    const List& ids = saved.at(Value("params")).to_list();
    EMBER_CHECK(ids.size() == groups_[gi].params().size(), op,
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group (group ", gi, ": ", ids.size(), " vs ",
                groups_[gi].params().size(), ")");
    for (size_t i = 0; i < ids.size(); ++i) id_map[ids[i].to_int()] = groups_[gi].params()[i];
    Dict options;
    for (const auto& [k, v] : saved)
      if (!(k.is_string() && k.to_string() == "params")) options.insert(k, v.clone());
    new_options.push_back(std::move(options));
  }
  std::unordered_map<const TensorImpl*, Dict> new_state;
  for (const auto& [k, v] : sd.at(Value("state")).to_dict()) {
    auto it = id_map.find(k.to_int());
    EMBER_CHECK(it != id_map.end(), op, "loaded state refers to parameter ", k.to_int(),
                ", which no parameter group lists");
    new_state[it->second.impl()] = copy_state_value(it->second, v, "").to_dict();
  }
  for (size_t gi = 0; gi < groups_.size(); ++gi) groups_[gi].options() = std::move(new_options[gi]);
  state_ = std::move(new_state);
}

}  // namespace ember::optim
