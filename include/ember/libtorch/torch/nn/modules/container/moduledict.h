// torch::nn::ModuleDict: ember's ModuleDict (children by key, in insertion order) with
// LibTorch's constructor from (key, module) pairs and its keys(), values(), items(), at<T>:
//   torch::nn::ModuleDict heads(std::vector<std::pair<std::string, std::shared_ptr<Module>>>{
//       {"cls", std::make_shared<torch::nn::LinearImpl>(8, 3)}});
//   heads["cls"];  heads->at<torch::nn::LinearImpl>("cls");  heads->keys();
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/nn/layers/container.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/pimpl.h"

namespace torch::nn {

class ModuleDictImpl : public ember::nn::ModuleDictImpl {
 public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<ember::nn::Module>>>& modules) {
    for (const auto& [key, module] : modules) insert(key, module);
  }
  using ember::nn::ModuleDictImpl::insert;
  /// Inserts each (key, module) pair (LibTorch's way; its insert is not public).
  void update(
      const std::vector<std::pair<std::string, std::shared_ptr<ember::nn::Module>>>& modules) {
    for (const auto& [key, module] : modules) insert(key, module);
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [key, module] : named_children()) out.push_back(key);
    return out;
  }
  std::vector<std::shared_ptr<ember::nn::Module>> values() const { return children(); }
  ember::nn::NamedModules items() const { return named_children(); }
  bool empty() const noexcept { return size() == 0; }
  EMBER_TORCH_LAYER_NAME(ModuleDict)
  /// For clone(): the same keys, each with a clone of its module.
  std::shared_ptr<ModuleDictImpl> fresh_copy(const std::optional<ember::Device>& device) const {
    auto copy = std::make_shared<ModuleDictImpl>();
    for (const auto& [key, module] : named_children()) copy->insert(key, module->clone(device));
    return copy;
  }
  template <class T>
  T& at(const std::string& key) {
    auto typed = std::dynamic_pointer_cast<T>((*this)[key]);
    if (!typed) ember::fail("ModuleDict", "module '", key, "' is a ", (*this)[key]->name());
    return *typed;
  }
};
TORCH_MODULE(ModuleDict);

}  // namespace torch::nn
