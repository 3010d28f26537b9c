// LibTorch's optimizer base (torch/optim/optimizer.h): groups, defaults, zero_grad, the state
// map, and the archive operators.
#include "torch/optim/optimizer.h"

#include <sstream>
#include <unordered_set>

#include "ember/error.h"
#include "torch/serialize/archive.h"

namespace torch::optim {

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  ember::fail("torch::optim::OptimizerParamState",
              "clone() is not implemented by this state "
              "class: derive it from OptimizerCloneableParamState<Derived>");
}

void OptimizerParamState::serialize(serialize::InputArchive& archive) {
  (void)archive;
  ember::fail("torch::optim::OptimizerParamState",
              "serialize(InputArchive&) is not implemented "
              "by this state class");
}

void OptimizerParamState::serialize(serialize::OutputArchive& archive) const {
  (void)archive;
  ember::fail("torch::optim::OptimizerParamState",
              "serialize(OutputArchive&) is not implemented "
              "by this state class");
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  ember::fail("torch::optim::OptimizerOptions",
              "clone() is not implemented by this options "
              "class: derive it from OptimizerCloneableOptions<Derived>");
}

void OptimizerOptions::serialize(serialize::InputArchive& archive) {
  (void)archive;
  ember::fail("torch::optim::OptimizerOptions",
              "serialize(InputArchive&) is not implemented by "
              "this options class");
}

void OptimizerOptions::serialize(serialize::OutputArchive& archive) const {
  (void)archive;
  ember::fail("torch::optim::OptimizerOptions",
              "serialize(OutputArchive&) is not implemented by "
              "this options class");
}

double OptimizerOptions::get_lr() const {
  ember::fail("torch::optim::OptimizerOptions",
              "get_lr() is not overridden by this options "
              "class, so schedulers cannot read its learning rate");
}

void OptimizerOptions::set_lr(const double lr) {
  ember::fail("torch::optim::OptimizerOptions", "set_lr(", lr,
              ") is not overridden by this "
              "options class, so schedulers cannot change its learning rate");
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  EMBER_CHECK(has_options(), "torch::optim::OptimizerParamGroup",
              "the group has no options (the optimizer gives it its defaults when the group is "
              "added)");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  return const_cast<OptimizerParamGroup*>(this)->options();
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK(defaults_ != nullptr, "torch::optim::Optimizer", "the defaults must not be null");
  for (const OptimizerParamGroup& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                std::move(defaults)) {}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  const char* op = "torch::optim::Optimizer::add_param_group";
  std::unordered_set<const ember::TensorImpl*> seen;
  for (const OptimizerParamGroup& g : param_groups_)
    for (const Tensor& p : g.params()) seen.insert(p.impl());
  for (const Tensor& p : param_group.params()) {
    EMBER_CHECK(p.defined(), op, "parameters must be defined tensors");
    EMBER_CHECK(p.is_leaf(), op, "can't optimize a non-leaf Tensor");
    EMBER_CHECK(seen.insert(p.impl()).second, op,
                "some parameters appear in more than one parameter group");
  }
  param_groups_.emplace_back(param_group.params(), param_group.has_options()
                                                       ? param_group.options().clone()
                                                       : defaults_->clone());
  try {
    param_group_added(param_groups_.back());
  } catch (...) {
    param_groups_.pop_back();  // a group the optimizer refused is not half added
    throw;
  }
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!param_groups_.empty(), "torch::optim::Optimizer::add_parameters",
              "the optimizer has no parameter group to add to");
  auto& params = param_groups_.front().params();
  params.insert(params.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& group : param_groups_)
    for (Tensor& p : group.params()) {
      Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        grad = Tensor();
      } else {
        if (grad.grad_fn()) grad = grad.detach();  // no history into the next backward
        grad.zero_();
      }
    }
}

const std::vector<Tensor>& Optimizer::parameters() const {
  EMBER_CHECK(!param_groups_.empty(), "torch::optim::Optimizer::parameters",
              "the optimizer has no parameter group");
  return param_groups_.front().params();
}

std::vector<Tensor>& Optimizer::parameters() {
  return const_cast<std::vector<Tensor>&>(std::as_const(*this).parameters());
}

size_t Optimizer::size() const noexcept {
  size_t count = 0;
  for (const OptimizerParamGroup& group : param_groups_) count += group.params().size();
  return count;
}

OptimizerState& Optimizer::state() {
  state_requested(true);
  return state_;
}

const OptimizerState& Optimizer::state() const {
  state_requested(false);
  return state_;
}

void Optimizer::save(serialize::OutputArchive& archive) const {
  (void)archive;
  ember::fail("torch::optim::Optimizer::save",
              "this optimizer does not say how to save itself: "
              "override save(OutputArchive&) and load(InputArchive&)");
}

void Optimizer::load(serialize::InputArchive& archive) {
  (void)archive;
  ember::fail("torch::optim::Optimizer::load",
              "this optimizer does not say how to load itself: "
              "override save(OutputArchive&) and load(InputArchive&)");
}

namespace detail {

std::string state_key(const Tensor& param) {
  std::ostringstream os;
  os << static_cast<const void*>(param.impl());
  return os.str();
}

}  // namespace detail

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace torch::optim
