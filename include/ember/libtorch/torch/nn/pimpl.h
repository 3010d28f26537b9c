// torch::nn::ModuleHolder<Impl> and TORCH_MODULE: LibTorch's shared handle on a module. It is
// ember's ModuleHolder (so register_module, ember's containers and `<<` take it) with
// LibTorch's constructors:
//   Net net;              constructs NetImpl() (a compile error when NetImpl has no default
//                         constructor: write `Net net{nullptr};` for an empty handle)
//   Net net(1, 2);        constructs NetImpl(1, 2)
//   Net net(nullptr);     empty, assigned later
//   Net net(impl_ptr);    shares a std::shared_ptr<NetImpl>
// and LibTorch's checks: ptr() and get() on an empty handle throw.
//   struct NetImpl : torch::nn::Module { ... };  TORCH_MODULE(Net);
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "ember/error.h"
#include "ember/nn/module.h"

namespace torch::nn {

namespace detail {
/// Whether `Head` is a handle on `Contained` (then a one-argument construction is a copy, not
/// a call of Contained's constructor).
template <class Head, class Contained>
concept HolderOf = std::derived_from<std::decay_t<Head>, ember::nn::ModuleHolder<Contained>>;
}  // namespace detail

template <typename Contained>
class ModuleHolder : public ember::nn::ModuleHolder<Contained> {
  using Base = ember::nn::ModuleHolder<Contained>;

 public:
  using ContainedType = Contained;

  /// Contained(), as LibTorch: only for default-constructible modules.
  ModuleHolder() : Base(default_construct()) {
    static_assert(std::is_default_constructible_v<Contained>,
                  "this module has no default constructor: use `= nullptr` (or `{nullptr}`) "
                  "for an empty handle, e.g. `torch::nn::Linear linear{nullptr};`");
  }
  /// The empty handle (a template, so a literal 0 — Softmax(0) — is a dim, not a null pointer).
  template <class T>
  requires std::same_as<T, std::nullptr_t>
  /* implicit */ ModuleHolder(T) : Base(nullptr) {}               // NOLINT
  /* implicit */ ModuleHolder(std::shared_ptr<Contained> module)  // NOLINT
      : Base(std::move(module)) {}
  /// Contained(head, tail...): LibTorch's forwarding constructor.
  template <class Head, class... Tail>
  requires(
      !(sizeof...(Tail) == 0 &&
        (detail::HolderOf<Head, Contained> || std::is_same_v<std::decay_t<Head>, std::nullptr_t> ||
         std::is_convertible_v<Head,
                               std::shared_ptr<Contained>>))) explicit ModuleHolder(Head&& head,
                                                                                    Tail&&... tail)
      : Base(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  /// The module; throws on an empty handle, as LibTorch's.
  const std::shared_ptr<Contained>& ptr() const {
    check_not_empty();
    return Base::ptr();
  }
  Contained* get() const {
    check_not_empty();
    return Base::get();
  }

  /// module[index]: the contained module's operator[] (Sequential, ModuleList, ModuleDict).
  template <typename Arg>
  decltype(auto) operator[](Arg&& arg) const {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  static std::shared_ptr<Contained> default_construct() {
    if constexpr (std::is_default_constructible_v<Contained>) {
      return std::make_shared<Contained>();
    } else {
      return nullptr;
    }
  }
  void check_not_empty() const {
    if (this->is_empty()) ember::fail("ModuleHolder", "Accessing empty ModuleHolder");
  }
};

}  // namespace torch::nn

/// class Name : a torch::nn::ModuleHolder<ImplType> with its constructors.
#define TORCH_MODULE_IMPL(Name, ImplType)                              \
  class Name : public torch::nn::ModuleHolder<ImplType> { /* NOLINT */ \
   public:                                                             \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;             \
    using Impl [[maybe_unused]] = ImplType;                            \
  }

/// TORCH_MODULE(Linear): the handle class Linear over LinearImpl.
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)
