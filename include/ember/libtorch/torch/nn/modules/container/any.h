// torch::nn::AnyModule: any module behind one type, called through its forward with the
// arguments' types checked when it runs (LibTorch's type-erased module, Sequential's element):
//   torch::nn::AnyModule any(torch::nn::Linear(3, 4));
//   torch::Tensor y = any.forward(x);                   // a Tensor result
//   auto pair = any.forward<std::tuple<Tensor, Tensor>>(q, k, v);
//   any.get<torch::nn::Linear>()->weight;  any.ptr();
// The module's forward must be one function (not overloaded); a forward that is a template
// (Sequential's) is taken as Tensor(const Tensor&).
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/nn/module.h"
#include "torch/nn/modules/common.h"
#include "torch/nn/modules/container/any_value.h"

namespace torch::nn {

namespace detail {

/// The parameter types of a forward, from its member function pointer.
template <class F>
struct ForwardSignature;
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...)> {
  using Args = std::tuple<A...>;
};
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) const> : ForwardSignature<R (C::*)(A...)> {};
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) noexcept> : ForwardSignature<R (C::*)(A...)> {};
template <class C, class R, class... A>
struct ForwardSignature<R (C::*)(A...) const noexcept> : ForwardSignature<R (C::*)(A...)> {};

template <class M>
struct ForwardArgs {
  static_assert(
      requires(M & m, const ember::Tensor& t) { m.forward(t); },
      "AnyModule and Sequential hold modules with a forward() method: one function, "
      "or a template that takes a Tensor (ModuleList and ModuleDict have none)");
  using type = std::tuple<const ember::Tensor&>;  // a template forward: Tensor -> Tensor
};
template <class M>
requires requires { &M::forward; }
struct ForwardArgs<M> {
  using type = typename ForwardSignature<decltype(&M::forward)>::Args;
};

/// What AnyModule keeps: the module and how to call its forward on AnyValues.
class AnyModulePlaceholder {
 public:
  virtual ~AnyModulePlaceholder() = default;
  virtual AnyValue forward(std::vector<AnyValue>&& arguments) = 0;
  virtual std::shared_ptr<ember::nn::Module> ptr() const = 0;
  virtual const std::type_info& type_info() const = 0;
  /// The same kind of holder over a clone of the module.
  virtual std::shared_ptr<AnyModulePlaceholder> clone_module(
      const std::optional<ember::Device>& device) const = 0;
};

template <class M, class ArgsTuple>
class AnyModuleHolder;

template <class M, class... Args>
class AnyModuleHolder<M, std::tuple<Args...>> : public AnyModulePlaceholder {
 public:
  explicit AnyModuleHolder(std::shared_ptr<M> module) : module_(std::move(module)) {}

  AnyValue forward(std::vector<AnyValue>&& arguments) override {
    constexpr size_t count = sizeof...(Args);
    if (arguments.size() < count) {
      if constexpr (ForwardDefaultArgs::declared<M>()) {
        // Fill the trailing arguments not given with the declared defaults.
        for (auto& [index, value] : ForwardDefaultArgs::of<M>())
          if (index == arguments.size()) arguments.push_back(std::move(value));
      }
    }
    if (arguments.size() != count)
      ember::fail("AnyModule", module_->name(), "'s forward() method expects ", count,
                  " argument(s), but received ", arguments.size(), ". If ", module_->name(),
                  "'s forward() method has default arguments, please make sure the forward() "
                  "method is declared with a corresponding `FORWARD_HAS_DEFAULT_ARGS` macro.");
    return call(arguments, std::index_sequence_for<Args...>{});
  }
  std::shared_ptr<ember::nn::Module> ptr() const override { return module_; }
  const std::type_info& type_info() const override { return typeid(M); }
  std::shared_ptr<AnyModulePlaceholder> clone_module(
      const std::optional<ember::Device>& device) const override {
    auto copy = std::dynamic_pointer_cast<M>(module_->clone(device));
    if (!copy)
      ember::fail("AnyModule", "clone() of ", module_->name(), " returned another type");
    return std::make_shared<AnyModuleHolder>(std::move(copy));
  }

 private:
  template <size_t I, class T>
  T& argument(std::vector<AnyValue>& arguments) {
    if (T* value = arguments[I].template try_get<T>()) return *value;
    ember::fail("AnyModule", "Expected argument #", I, " to be of type ",
                demangle(typeid(T).name()), ", but received value of type ",
                demangle(arguments[I].type_info().name()));
  }
  template <size_t... I>
  AnyValue call(std::vector<AnyValue>& arguments, std::index_sequence<I...>) {
    // Through ember's call_forward, so the module's hooks run as when its handle is called.
    return AnyValue(
        ember::nn::detail::call_forward(*module_, argument<I, std::decay_t<Args>>(arguments)...));
  }

  std::shared_ptr<M> module_;
};

}  // namespace detail

class AnyModule {
 public:
  AnyModule() = default;
  template <class M>
  requires std::derived_from<M, ember::nn::Module>
  explicit AnyModule(std::shared_ptr<M> module) {
    if (!module) ember::fail("AnyModule", "the module is null");
    content_ = std::make_shared<detail::AnyModuleHolder<M, typename detail::ForwardArgs<M>::type>>(
        std::move(module));
  }
  /// From a handle (torch::nn::Linear, a TORCH_MODULE class, ember's handles).
  template <class M>
  explicit AnyModule(const ember::nn::ModuleHolder<M>& holder) : AnyModule(holder.ptr()) {}

  template <class M>
  requires std::derived_from<M, ember::nn::Module> AnyModule& operator=(std::shared_ptr<M> module) {
    return *this = AnyModule(std::move(module));
  }

  /// forward(arguments...) with the result as an AnyValue.
  template <class... Arguments>
  AnyValue any_forward(Arguments&&... arguments) {
    std::vector<AnyValue> values;
    values.reserve(sizeof...(Arguments));
    (values.push_back(AnyValue(std::forward<Arguments>(arguments))), ...);
    return checked()->forward(std::move(values));
  }
  /// forward(arguments...) with the result read as ReturnType (a Tensor by default).
  template <class ReturnType = ember::Tensor, class... Arguments>
  ReturnType forward(Arguments&&... arguments) {
    return any_forward(std::forward<Arguments>(arguments)...).template get<ReturnType>();
  }

  /// get<LinearImpl>() is the module (a reference); get<Linear>() a handle on it.
  template <class T>
  decltype(auto) get() const {
    if constexpr (std::derived_from<T, ember::nn::Module>) {
      return static_cast<T&>(*ptr<T>());
    } else {
      return T(ptr<typename T::element_type>());
    }
  }
  std::shared_ptr<ember::nn::Module> ptr() const { return checked()->ptr(); }
  /// The module as T; throws when it is not one.
  template <class T>
  std::shared_ptr<T> ptr() const {
    auto typed = std::dynamic_pointer_cast<T>(ptr());
    if (!typed)
      ember::fail("AnyModule", "Attempted to cast module of type ",
                  detail::demangle(type_info().name()), " to type ",
                  detail::demangle(typeid(T).name()));
    return typed;
  }
  const std::type_info& type_info() const { return checked()->type_info(); }
  bool is_empty() const noexcept { return content_ == nullptr; }
  /// An AnyModule over a deep copy of the module (module->clone(device)), typed as this one.
  AnyModule clone(const std::optional<ember::Device>& device = std::nullopt) const {
    AnyModule copy;
    copy.content_ = checked()->clone_module(device);
    return copy;
  }

 private:
  detail::AnyModulePlaceholder* checked() const {
    if (!content_) ember::fail("AnyModule", "Cannot call forward() on an empty AnyModule");
    return content_.get();
  }

  // Shared: a copy of an AnyModule refers to the same module, as LibTorch's.
  std::shared_ptr<detail::AnyModulePlaceholder> content_;
};

}  // namespace torch::nn
