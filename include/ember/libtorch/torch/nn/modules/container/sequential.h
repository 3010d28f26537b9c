// torch::nn::Sequential: modules run one after another, each on the previous one's output.
// It holds AnyModules, so any module with a forward goes in (the first may take several
// inputs; the result is read as the type asked, a Tensor by default):
//   torch::nn::Sequential net(torch::nn::Linear(4, 8), torch::nn::Functional(torch::relu));
//   torch::nn::Sequential named({{"fc", torch::nn::Linear(4, 8)}, {"act", torch::nn::ReLU()}});
//   net->push_back(torch::nn::Linear(8, 2));  net->size();  net[0];  net->at<LinearImpl>(0);
//   torch::Tensor y = net->forward(x);  // or net(x)
// Children are named "0", "1", ... (their index when added) unless given names.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/nn/module.h"
#include "torch/nn/modules/container/any.h"
#include "torch/nn/modules/container/named_any.h"
#include "torch/nn/modules/utils.h"
#include "torch/nn/pimpl.h"

namespace torch::nn {

class SequentialImpl : public ember::nn::Module {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  template <class... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const auto& named : named_modules) push_back(named.name(), named.module());
  }

  /// Runs the modules in order; the first gets `inputs`, each next one the previous result.
  template <typename ReturnType = ember::Tensor, typename... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    if (modules_.empty()) ember::fail("Sequential", "Cannot call forward() on an empty Sequential");
    auto iterator = modules_.begin();
    AnyValue value = iterator->any_forward(std::forward<InputTypes>(inputs)...);
    for (++iterator; iterator != modules_.end(); ++iterator)
      value = iterator->any_forward(std::move(value));
    if (ReturnType* result = value.template try_get<ReturnType>()) return std::move(*result);
    ember::fail("Sequential", "The type of the return value is ",
                detail::demangle(value.type_info().name()), ", but you asked for type ",
                detail::demangle(typeid(ReturnType).name()));
  }

  template <class M>
  requires std::derived_from<M, ember::nn::Module>
  void push_back(std::shared_ptr<M> module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  template <class M>
  requires std::derived_from<M, ember::nn::Module>
  void push_back(std::string name, std::shared_ptr<M> module) {
    push_back(std::move(name), AnyModule(std::move(module)));
  }
  template <class M>
  void push_back(const ember::nn::ModuleHolder<M>& holder) {
    push_back(std::to_string(modules_.size()), holder);
  }
  template <class M>
  void push_back(std::string name, const ember::nn::ModuleHolder<M>& holder) {
    push_back(std::move(name), AnyModule(holder));
  }
  void push_back(AnyModule module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  void push_back(std::string name, AnyModule module) {
    register_module(name, module.ptr());
    names_.push_back(std::move(name));
    modules_.push_back(std::move(module));
  }
  /// Appends every module of another Sequential (or any container of modules).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

  /// The module at `index` as T (LinearImpl&).
  template <class T>
  T& at(size_t index) {
    return checked(index).template get<T>();
  }
  std::shared_ptr<ember::nn::Module> ptr(size_t index) const { return checked(index).ptr(); }
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    return checked(index).template ptr<T>();
  }
  std::shared_ptr<ember::nn::Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  EMBER_TORCH_LAYER_NAME(Sequential)
  /// For clone(): a Sequential of clones of the modules, under the same names.
  std::shared_ptr<SequentialImpl> fresh_copy(const std::optional<ember::Device>& device) const {
    auto copy = std::make_shared<SequentialImpl>();
    for (size_t i = 0; i < modules_.size(); ++i)
      copy->push_back(names_[i], modules_[i].clone(device));
    return copy;
  }

 private:
  const AnyModule& checked(size_t index) const {
    if (index >= modules_.size())
      ember::fail("Sequential", "Index out of range (expected at most ", modules_.size(),
                  " modules, got index ", index, ")");
    return modules_[index];
  }

  std::vector<AnyModule> modules_;
  std::vector<std::string> names_;  // modules_[i]'s name
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

}  // namespace torch::nn
