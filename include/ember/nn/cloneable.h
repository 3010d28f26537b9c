// Cloneable<Derived>: the base of a module that can deep-copy itself (LibTorch's
// torch::nn::Cloneable): derive from it instead of Module and register every parameter, buffer
// and child in reset(), which the constructor calls and clone() calls again on the copy.
#pragma once

#include <memory>
#include <optional>

#include "ember/autograd.h"
#include "ember/nn/module.h"

namespace ember::nn {

template <class Derived>
class Cloneable : public Module {
 public:
  using Module::Module;

  /// (Re)creates the module's parameters, buffers and children.
  virtual void reset() = 0;

  /// A copy of the derived module (its other members copied as they are) whose reset() made new
  /// parameters, buffers and children, which then take this module's values, matched by name
  /// (children included): clones of them, or copies on `device`.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    NoGradGuard no_grad;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->clear_registrations();
    copy->reset();
    copy->copy_state_from(*this, device);
    return copy;
  }
};

}  // namespace ember::nn
