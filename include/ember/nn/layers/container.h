// Containers: Sequential (heterogeneous, indexable, push_back), ModuleList, ModuleDict,
// ParameterList and ParameterDict. Children are named "0", "1", ... (or by key), as PyTorch.
//   nn::Sequential seq(nn::Linear(64, 128), nn::ReLU(), nn::Linear(128, 10));  seq(x);  seq[0];
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

/// Runs its modules in order, each on the previous one's output (Tensor -> Tensor forwards).
class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  template <class... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  /// Appends a layer handle or a shared_ptr to a module with forward(const Tensor&).
  template <class Holder>
    requires std::derived_from<std::decay_t<Holder>, ModuleHolderBase>
  void push_back(Holder module) {
    auto impl = module.ptr();
    add(impl, [impl](const Tensor& x) { return Tensor(detail::call_forward(*impl, x)); });
  }
  template <class M>
    requires std::derived_from<M, Module>
  void push_back(std::shared_ptr<M> module) {
    add(module, [m = module.get()](const Tensor& x) { return Tensor(detail::call_forward(*m, x)); });
  }
  Tensor forward(const Tensor& input);
  /// The i-th module (negative counts from the end).
  std::shared_ptr<Module> operator[](int64_t index) const;
  /// The i-th module as its concrete type (throws on a different type).
  template <class M>
  std::shared_ptr<M> at(int64_t index) const {
    auto m = std::dynamic_pointer_cast<M>((*this)[index]);
    EMBER_CHECK(m != nullptr, "Sequential", "module ", index, " is a ", (*this)[index]->name());
    return m;
  }
  size_t size() const { return steps_.size(); }

 private:
  void add(std::shared_ptr<Module> module, std::function<Tensor(const Tensor&)> fn);
  std::vector<std::pair<std::shared_ptr<Module>, std::function<Tensor(const Tensor&)>>> steps_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  Sequential() : ModuleHolder(std::make_shared<SequentialImpl>()) {}
  template <class First, class... Rest>
    requires(!std::is_same_v<std::decay_t<First>, Sequential> &&
             !std::is_same_v<std::decay_t<First>, std::nullptr_t> &&
             !std::is_same_v<std::decay_t<First>, std::shared_ptr<SequentialImpl>>)
  explicit Sequential(First&& first, Rest&&... rest)
      : ModuleHolder(std::make_shared<SequentialImpl>(std::forward<First>(first),
                                                      std::forward<Rest>(rest)...)) {}
  std::shared_ptr<Module> operator[](int64_t index) const { return (**this)[index]; }
};

/// Holds modules in a list; has no forward of its own.
class ModuleListImpl : public Module {
 public:
  void push_back(std::shared_ptr<Module> module);
  template <class Holder>
    requires std::derived_from<Holder, ModuleHolderBase>
  void push_back(const Holder& module) {
    push_back(std::shared_ptr<Module>(module.ptr()));
  }
  std::shared_ptr<Module> operator[](int64_t index) const;
  size_t size() const { return modules_.size(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
class ModuleList : public ModuleHolder<ModuleListImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ModuleList() : ModuleHolder(std::make_shared<ModuleListImpl>()) {}
};

/// Holds modules by string key, in insertion order.
class ModuleDictImpl : public Module {
 public:
  void insert(const std::string& key, std::shared_ptr<Module> module);
  std::shared_ptr<Module> operator[](const std::string& key) const;
  bool contains(const std::string& key) const;
  size_t size() const { return named_children().size(); }
};
class ModuleDict : public ModuleHolder<ModuleDictImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ModuleDict() : ModuleHolder(std::make_shared<ModuleDictImpl>()) {}
};

/// Parameters named "0", "1", ...
class ParameterListImpl : public Module {
 public:
  Tensor append(Tensor parameter);
  const Tensor& operator[](int64_t index) const;
  size_t size() const { return items_.size(); }
  std::string extra_repr() const override;

 private:
  std::vector<Tensor> items_;
};
class ParameterList : public ModuleHolder<ParameterListImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ParameterList() : ModuleHolder(std::make_shared<ParameterListImpl>()) {}
};

/// Parameters by key, in insertion order.
class ParameterDictImpl : public Module {
 public:
  Tensor insert(const std::string& key, Tensor parameter);
  Tensor operator[](const std::string& key) const;
  size_t size() const { return named_parameters(false).size(); }
  std::string extra_repr() const override;
};
class ParameterDict : public ModuleHolder<ParameterDictImpl> {
 public:
  using ModuleHolder::ModuleHolder;
  ParameterDict() : ModuleHolder(std::make_shared<ParameterDictImpl>()) {}
};

}  // namespace ember::nn
