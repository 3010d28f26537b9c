// torch::nn::ModuleList: ember's ModuleList (children "0", "1", ..., no forward) with
// LibTorch's extras: built from modules, extend, at<T>(i), ptr(i), ptr<T>(i), is_empty:
//   torch::nn::ModuleList layers(torch::nn::Linear(4, 4), torch::nn::ReLU());
//   for (const auto& module : *layers) ...;  layers[0];  layers->at<torch::nn::LinearImpl>(0)
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "ember/error.h"
#include "ember/nn/layers/container.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/pimpl.h"

namespace torch::nn {

class ModuleListImpl : public ember::nn::ModuleListImpl {
 public:
  ModuleListImpl() = default;
  template <class... Modules>
  explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  using ember::nn::ModuleListImpl::push_back;
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }
  template <class T>
  T& at(size_t index) {
    return *ptr<T>(index);
  }
  std::shared_ptr<ember::nn::Module> ptr(size_t index) const {
    if (index >= size())
      ember::fail("ModuleList", "Index out of range (the list has ", size(), " modules, got ",
                  index, ")");
    return (*this)[static_cast<int64_t>(index)];
  }
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    auto typed = std::dynamic_pointer_cast<T>(ptr(index));
    if (!typed) ember::fail("ModuleList", "module ", index, " is a ", ptr(index)->name());
    return typed;
  }
  bool is_empty() const noexcept { return size() == 0; }
  EMBER_TORCH_LAYER_NAME(ModuleList)
  /// For clone(): a list of clones of the modules.
  std::shared_ptr<ModuleListImpl> fresh_copy(const std::optional<ember::Device>& device) const {
    auto copy = std::make_shared<ModuleListImpl>();
    for (const auto& module : children()) copy->push_back(module->clone(device));
    return copy;
  }
};
TORCH_MODULE(ModuleList);

}  // namespace torch::nn
