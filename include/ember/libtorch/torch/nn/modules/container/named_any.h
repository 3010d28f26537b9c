// torch::nn::NamedAnyModule: a name and a module, the elements of the braced list that builds a
// Sequential with named children:
//   torch::nn::Sequential net({{"fc", torch::nn::Linear(4, 8)}, {"act", torch::nn::ReLU()}});
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <utility>

#include "ember/nn/module.h"
#include "torch/nn/modules/container/any.h"

namespace torch::nn {

class NamedAnyModule {
 public:
  template <class M>
  requires std::derived_from<M, ember::nn::Module> NamedAnyModule(std::string name,
                                                                  std::shared_ptr<M> module)
      : name_(std::move(name)), module_(std::move(module)) {}
  template <class M>
  NamedAnyModule(std::string name, const ember::nn::ModuleHolder<M>& holder)
      : name_(std::move(name)), module_(holder) {}
  NamedAnyModule(std::string name, AnyModule module)
      : name_(std::move(name)), module_(std::move(module)) {}

  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace torch::nn
