// The steps Cloneable<Derived>::clone (nn/cloneable.h) takes on the copy of a module. Besides
// the values, copy_state_from gives each module of the copy its original's mode (train/eval).
#include <string>
#include <unordered_map>

#include "ember/nn/module.h"

namespace ember::nn {

Module::Module(const Module& other)
    : std::enable_shared_from_this<Module>(),
      parameters_(other.parameters_),
      buffers_(other.buffers_),
      children_(other.children_),
      training_(other.training_) {}

void Module::clear_registrations() {
  parameters_.clear();
  buffers_.clear();
  children_.clear();
}

namespace {

// Gives every tensor of `copy` the value of the same-named one of `original`; both lists must
// name the same tensors (what reset() registered must be what the original has).
void copy_values(const NamedTensors& original, const NamedTensors& copy, const char* kind,
                 const std::string& module, const std::optional<Device>& device) {
  std::unordered_map<std::string, Tensor> by_name;
  for (const auto& [name, t] : copy) by_name.emplace(name, t);
  EMBER_CHECK(by_name.size() == original.size(), "clone",
              "The cloned module (", module, ") does not have the same number of ", kind,
              " as the original module after calling reset() (", by_name.size(), " vs ",
              original.size(), "). Are you sure you registered them inside reset() and not the "
              "constructor?");
  for (const auto& [name, t] : original) {
    auto it = by_name.find(name);
    EMBER_CHECK(it != by_name.end(), "clone", "The cloned module (", module, ") has no ", kind,
                " named '", name, "' after calling reset()");
    const Tensor value = device && t.device() != *device ? t.to(*device) : t.clone();
    it->second.impl()->set_data(value.storage(), value.dtype(), value.sizes(), value.strides(),
                                value.storage_offset());
  }
}

}  // namespace

void Module::copy_state_from(const Module& original, const std::optional<Device>& device) {
  copy_values(original.named_parameters(), named_parameters(), "parameters", name(), device);
  copy_values(original.named_buffers(), named_buffers(), "buffers", name(), device);
  // Each module keeps its own mode (a child may be in eval while its parent trains).
  std::unordered_map<std::string, Module*> modules;
  for (const auto& [name, m] : named_modules()) modules.emplace(name, m.get());
  for (const auto& [name, m] : original.named_modules())
    if (auto it = modules.find(name); it != modules.end()) it->second->training_ = m->training_;
}

}  // namespace ember::nn
