// torch::optim's optimizers over ember's: the pushes and pulls between LibTorch's typed groups
// and state and the engine (Note [LibTorch optimizers over ember's] in
// torch/optim/detail/ember_optimizer.h).
#include "torch/optim/detail/ember_optimizer.h"

#include <unordered_map>

#include "torch/serialize/archive.h"

namespace torch::optim::detail {

void EngineOptimizer::set_engine(std::unique_ptr<ember::optim::Optimizer> engine) {
  engine_ = std::move(engine);
  // The engine's groups were made with every option given; the first push lays their dicts
  // out as PyTorch's (defaults order).
  for (size_t i = 0; i < param_groups_.size(); ++i)
    engine_->param_groups()[i].options() = engine_options(param_groups_[i].options());
}

void EngineOptimizer::param_group_added(const OptimizerParamGroup& group) {
  if (!engine_) return;  // the constructor's groups: set_engine makes them
  add_engine_group(group);
  engine_->param_groups().back().options() = engine_options(group.options());
}

void EngineOptimizer::push_groups() const {
  std::vector<ember::optim::ParamGroup>& groups = engine_->param_groups();
  // Groups a program appended to param_groups() itself rather than by add_param_group.
  for (size_t i = groups.size(); i < param_groups_.size(); ++i)
    const_cast<EngineOptimizer*>(this)->add_engine_group(param_groups_[i]);
  EMBER_CHECK(groups.size() == param_groups_.size(), engine_->name(), "the optimizer has ",
              groups.size(), " parameter groups but param_groups() lists ", param_groups_.size(),
              ": groups cannot be removed");
  for (size_t i = 0; i < groups.size(); ++i) {
    groups[i].params() = param_groups_[i].params();
    ember::Dict& options = groups[i].options();
    for (const auto& [key, value] : engine_options(param_groups_[i].options()))
      options.insert(key, value);
  }
}

void EngineOptimizer::push_state() const {
  if (!state_lent_) return;
  std::unordered_map<std::string, Tensor> params;
  for (const OptimizerParamGroup& g : param_groups_)
    for (const Tensor& p : g.params()) params.emplace(state_key(p), p);
  for (const auto& [key, state] : state_) {
    auto it = params.find(key);
    EMBER_CHECK(it != params.end(), engine_->name(), "state() has an entry '", key,
                "' that is no parameter of the optimizer");
    if (state) write_engine_state(*state, engine_->state(it->second));
  }
}

void EngineOptimizer::pull_state() const {
  auto& state = const_cast<OptimizerState&>(state_);
  std::unordered_map<std::string, bool> present;
  for (const OptimizerParamGroup& g : param_groups_)
    for (const Tensor& p : g.params()) {
      const ember::Dict& engine_state = engine_->state(p);
      if (engine_state.empty()) continue;
      const std::string key = state_key(p);
      std::unique_ptr<OptimizerParamState>& entry = state[key];
      if (!entry) entry = new_state();  // existing objects are updated, not replaced
      read_engine_state(engine_state, *entry);
      present[key] = true;
    }
  std::erase_if(state, [&](const auto& kv) { return !present.count(kv.first); });
  state_current_ = true;
}

void EngineOptimizer::state_requested(bool writable) const {
  if (!state_current_) pull_state();
  if (writable) state_lent_ = true;
}

void EngineOptimizer::engine_changed() {
  // Objects a program may hold are kept current, as LibTorch's own are; otherwise state() makes
  // them when asked.
  if (state_lent_)
    pull_state();
  else
    state_current_ = false;
}

Tensor EngineOptimizer::step(LossClosure closure) {
  push_groups();
  push_state();
  Tensor loss = engine_->step(closure);
  engine_changed();
  return loss;
}

void EngineOptimizer::save(serialize::OutputArchive& archive) const {
  push_groups();
  push_state();
  const ember::Value state_dict = engine_->state_dict();
  archive.write("state", state_dict["state"]);
  archive.write("param_groups", state_dict["param_groups"]);
}

void EngineOptimizer::load(serialize::InputArchive& archive) {
  c10::IValue state, groups;
  archive.read("state", state);
  archive.read("param_groups", groups);
  push_groups();  // the engine's parameter lists are the ones the saved ids map onto
  engine_->load_state_dict(ember::Dict{{"state", state}, {"param_groups", groups}});
  push_groups();  // the program's options over the loaded ones, as LibTorch keeps them
  engine_changed();
}

}  // namespace torch::optim::detail
