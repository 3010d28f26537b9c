// nn::Module: the base of every layer and model — named parameters, buffers and child modules
// (dotted names, recursive), train/eval, dtype/device moves, state dicts and hooks, as
// torch.nn.Module. Layers are used through shared handles (ModuleHolder): copying one shares the
// module, `layer->weight` reaches its members and `layer(x)` runs forward with the hooks.
//
//   struct MyModel : nn::Module {
//     nn::Linear linear1;
//     Tensor step_count;
//     MyModel() : linear1(register_module("linear1", nn::Linear(4, 8))),
//                 step_count(register_buffer("step_count", zeros({1}))) {}
//   };
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/named.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::nn {

class Module;

using NamedTensors = NamedList<Tensor>;
using NamedModules = NamedList<std::shared_ptr<Module>>;

/// What load_state_dict found out of place (PyTorch's _IncompatibleKeys).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

struct LoadStateDictOptions {
  bool strict = true;  // missing or unexpected keys are an error
};

// Hook signatures. A pre-hook may return replacement inputs (non-empty), a forward hook a
// replacement output (defined), a backward hook replacement grad_inputs (non-empty); the
// register_* templates also take hooks that return void.
using ForwardPreHook = std::function<std::vector<Tensor>(Module&, const std::vector<Tensor>&)>;
using ForwardHook = std::function<Tensor(Module&, const std::vector<Tensor>&, const Tensor&)>;
using BackwardHook = std::function<std::vector<Tensor>(Module&, const std::vector<Tensor>&,
                                                       const std::vector<Tensor>&)>;

/// Base of the layer handles (nn::Linear, nn::Sequential, ...), so register_module knows them.
class ModuleHolderBase {};

class Module : public std::enable_shared_from_this<Module> {
 public:
  Module() = default;
  virtual ~Module();
  Module& operator=(const Module&) = delete;

  /// The class name shown by repr and errors: by default the demangled type name without its
  /// namespaces and without an "Impl" suffix (LinearImpl -> "Linear").
  virtual std::string name() const;
  /// The text inside "Linear(...)" (PyTorch's extra_repr); empty by default.
  virtual std::string extra_repr() const { return {}; }

  // ── registration ───────────────────────────────────────────────────────
  /// Adds a parameter (a leaf; requires_grad set as given). An undefined tensor registers an
  /// absent parameter (PyTorch's `bias=None`): it is skipped everywhere. Returns the handle.
  Tensor register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  /// Adds a buffer: state that is not learned. Non-persistent buffers stay out of state_dict.
  Tensor register_buffer(const std::string& name, Tensor tensor, bool persistent = true);
  /// Adds a child module given as a layer handle; returns the same handle.
  template <class Holder>
    requires std::derived_from<Holder, ModuleHolderBase>
  Holder register_module(const std::string& name, Holder module) {
    add_child(name, module.ptr());
    return module;
  }
  /// Adds a child module given as a shared_ptr (user-defined modules); returns it.
  template <class M>
    requires std::derived_from<M, Module>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }
  /// Puts `module` in place of the child registered as `name` and returns it (LibTorch's
  /// replace_module: assign the result to the member handle that held the old child). Throws
  /// when no child has that name.
  template <class Holder>
    requires std::derived_from<Holder, ModuleHolderBase>
  auto replace_module(const std::string& name, Holder module) {
    replace_child(name, module.ptr());
    return module.ptr();
  }
  template <class M>
    requires std::derived_from<M, Module>
  std::shared_ptr<M> replace_module(const std::string& name, std::shared_ptr<M> module) {
    replace_child(name, module);
    return module;
  }
  /// Removes the child registered as `name` (LibTorch's unregister_module); throws when none.
  void unregister_module(const std::string& name);

  // ── traversal (dotted names, registration order, shared objects listed once) ──
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedModules named_children() const;
  std::vector<std::shared_ptr<Module>> children() const;
  /// This module first (named `prefix`, "" by default; left out when !include_self), then every
  /// descendant, depth first.
  NamedModules named_modules(const std::string& prefix = "", bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;

  // ── modes and conversions ──────────────────────────────────────────────
  /// Sets training mode here and in every descendant.
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  /// Converts the floating-point parameters and buffers (and their grads) to `dtype` in place:
  /// every existing handle on them sees the new dtype, as after PyTorch's `module.to(dtype)`.
  Module& to(Dtype dtype);
  /// Moves every parameter and buffer to `device`, in place as above.
  Module& to(Device device);
  Module& to(Device device, Dtype dtype);
  /// The conversions above, as LibTorch's virtuals: a module that keeps state outside its
  /// registered parameters and buffers overrides them (calling these first). Each converts the
  /// children through their own overrides, then this module's tensors. non_blocking allows a
  /// copy between devices to finish after the call returns; ember's finish before it returns.
  virtual void to(Dtype dtype, bool non_blocking);
  virtual void to(Device device, bool non_blocking);
  virtual void to(Device device, Dtype dtype, bool non_blocking);
  /// Clears the parameters' gradients: to zeros (PyTorch 1.13's and LibTorch's default), or to
  /// undefined tensors with set_to_none.
  void zero_grad(bool set_to_none = false);
  /// Calls fn on every descendant, then on this module (PyTorch's order).
  Module& apply(const std::function<void(Module&)>& fn);
  /// LibTorch's module.as<T>(): this module as T — a layer's Impl (nn::LinearImpl) or its
  /// handle type (nn::Linear) — or nullptr when it is not one.
  template <class T>
  auto* as() {
    if constexpr (requires { typename T::element_type; })
      return dynamic_cast<typename T::element_type*>(this);
    else
      return dynamic_cast<T*>(this);
  }
  template <class T>
  const auto* as() const {
    return const_cast<Module*>(this)->as<T>();
  }
  /// A deep copy (parameters and buffers cloned, or copied to `device`), as LibTorch's
  /// module->clone(). Modules get it from Cloneable<Derived> (nn/cloneable.h); others throw.
  virtual std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const;
  Module& requires_grad_(bool requires_grad = true);

  // ── state ──────────────────────────────────────────────────────────────
  /// Parameters then persistent buffers of each module, recursively, detached.
  StateDict state_dict() const;
  /// Copies the values into the existing tensors (under no_grad), so handles see them. Throws
  /// ember::Error listing every shape mismatch (always) and the missing / unexpected keys (when
  /// strict), with PyTorch's wording.
  IncompatibleKeys load_state_dict(const StateDict& state_dict, LoadStateDictOptions options = {});

  // ── hooks (each returns a handle whose remove() unregisters it) ────────
  /// hook(module, inputs) before forward; may return replacement inputs (vector or Tensor).
  template <class F>
  HookHandle register_forward_pre_hook(F hook);
  /// hook(module, inputs, output) after forward; may return a replacement output.
  template <class F>
  HookHandle register_forward_hook(F hook);
  /// hook(module, grad_input, grad_output) once the gradients of the inputs are computed; may
  /// return replacement grad_inputs.
  template <class F>
  HookHandle register_full_backward_hook(F hook);
  bool has_hooks() const;

  /// Runs around the module's forward, inside its hooks: given the inputs and the forward, it
  /// returns the output (activation checkpointing installs one that recomputes the forward in
  /// backward). One per module; an empty function removes it.
  using ForwardWrapper = std::function<Tensor(
      const std::vector<Tensor>& inputs,
      const std::function<Tensor(const std::vector<Tensor>&)>& forward)>;
  void set_forward_wrapper(ForwardWrapper wrapper) { forward_wrapper_ = std::move(wrapper); }
  bool has_forward_wrapper() const { return bool(forward_wrapper_); }
  const ForwardWrapper& forward_wrapper() const { return forward_wrapper_; }

  /// Runs forward (given as fn over the inputs) inside the hooks and the forward wrapper.
  /// ModuleHolder::operator() calls this for forwards over tensors; a module without hooks or
  /// wrapper is called directly.
  Tensor call_with_hooks(std::vector<Tensor> inputs,
                         const std::function<Tensor(const std::vector<Tensor>&)>& forward);

  /// PyTorch's repr: "MyModel(\n  (linear1): Linear(in_features=..., ...)\n)".
  std::string repr() const;

 protected:
  /// For Cloneable's copy of the derived module: the copy shares the registered tensors and
  /// children until Cloneable::clone replaces them; hooks and the forward wrapper stay behind.
  Module(const Module& other);
  /// Cloneable::clone: forgets the parameters, buffers and children (the copy's reset() registers
  /// new ones), then copies the original's values into the new ones, matched by name.
  void clear_registrations();
  void copy_state_from(const Module& original, const std::optional<Device>& device);

 private:
  struct Slot {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  template <class Fn>
  struct HookList {
    struct Entry {
      uint64_t id;
      Fn fn;
    };
    std::vector<Entry> entries;
    uint64_t next_id = 0;
  };
  template <class Fn>
  static HookHandle add_hook(std::shared_ptr<HookList<Fn>>& list, Fn fn);

  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void replace_child(const std::string& name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* op, const char* kind) const;
  void convert(const std::function<Tensor(const Tensor&)>& fn);
  void save_to(StateDict& out, const std::string& prefix) const;
  void load_from(const StateDict& sd, const std::string& prefix, IncompatibleKeys& keys,
                 std::vector<std::string>& errors);
  std::shared_ptr<Module> self_ptr() const;

  std::vector<Slot> parameters_;
  std::vector<Slot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
  std::shared_ptr<HookList<ForwardPreHook>> pre_hooks_;
  std::shared_ptr<HookList<ForwardHook>> forward_hooks_;
  std::shared_ptr<HookList<BackwardHook>> backward_hooks_;
  ForwardWrapper forward_wrapper_;
};

std::ostream& operator<<(std::ostream& os, const Module& module);

// ── hook registration (templates: they adapt hooks that return void) ─────
template <class Fn>
HookHandle Module::add_hook(std::shared_ptr<HookList<Fn>>& list, Fn fn) {
  if (!list) list = std::make_shared<HookList<Fn>>();
  const uint64_t id = list->next_id++;
  list->entries.push_back({id, std::move(fn)});
  return HookHandle([weak = std::weak_ptr<HookList<Fn>>(list), id] {
    if (auto l = weak.lock())
      std::erase_if(l->entries, [id](const auto& e) { return e.id == id; });
  });
}

template <class F>
HookHandle Module::register_forward_pre_hook(F hook) {
  using R = std::invoke_result_t<F&, Module&, const std::vector<Tensor>&>;
  ForwardPreHook fn = [hook = std::move(hook)](Module& m, const std::vector<Tensor>& in) mutable {
    if constexpr (std::is_void_v<R>) {
      hook(m, in);
      return std::vector<Tensor>{};
    } else if constexpr (std::is_convertible_v<R, Tensor>) {
      Tensor t = hook(m, in);
      return t.defined() ? std::vector<Tensor>{t} : std::vector<Tensor>{};
    } else {
      return std::vector<Tensor>(hook(m, in));
    }
  };
  return add_hook(pre_hooks_, std::move(fn));
}

template <class F>
HookHandle Module::register_forward_hook(F hook) {
  using R = std::invoke_result_t<F&, Module&, const std::vector<Tensor>&, const Tensor&>;
  ForwardHook fn = [hook = std::move(hook)](Module& m, const std::vector<Tensor>& in,
                                            const Tensor& out) mutable {
    if constexpr (std::is_void_v<R>) {
      hook(m, in, out);
      return Tensor();
    } else {
      return Tensor(hook(m, in, out));
    }
  };
  return add_hook(forward_hooks_, std::move(fn));
}

template <class F>
HookHandle Module::register_full_backward_hook(F hook) {
  using R = std::invoke_result_t<F&, Module&, const std::vector<Tensor>&,
                                 const std::vector<Tensor>&>;
  BackwardHook fn = [hook = std::move(hook)](Module& m, const std::vector<Tensor>& grad_in,
                                             const std::vector<Tensor>& grad_out) mutable {
    if constexpr (std::is_void_v<R>) {
      hook(m, grad_in, grad_out);
      return std::vector<Tensor>{};
    } else {
      return std::vector<Tensor>(hook(m, grad_in, grad_out));
    }
  };
  return add_hook(backward_hooks_, std::move(fn));
}

// ── calling forward ────────────────────────────────────────────────────────
namespace detail {

/// Calls m.forward(args...), inside the module's hooks when it has any. Hooks see tensor
/// arguments and a tensor result; other forwards refuse hooks.
template <class M, class... Args>
decltype(auto) call_forward(M& m, Args&&... args) {
  using Result = decltype(m.forward(std::forward<Args>(args)...));
  constexpr bool hookable = (std::is_convertible_v<Args, const Tensor&> && ...) &&
                            std::is_same_v<std::decay_t<Result>, Tensor>;
  if (m.has_hooks()) {
    if constexpr (hookable) {
      return Tensor(m.call_with_hooks(
          std::vector<Tensor>{Tensor(args)...}, [&m](const std::vector<Tensor>& in) -> Tensor {
            return [&]<size_t... I>(std::index_sequence<I...>) {
              return m.forward(in[I]...);
            }(std::index_sequence_for<Args...>{});
          }));
    } else {
      fail("Module", m.name(), " has hooks, which need a forward taking and returning tensors");
    }
  }
  return Result(m.forward(std::forward<Args>(args)...));
}

}  // namespace detail

/// A shared handle on a module of type Impl (torch::nn::ModuleHolder without the macro): copies
/// share the module; `->` reaches it; calling it runs forward with the hooks.
template <class Impl>
class ModuleHolder : public ModuleHolderBase {
 public:
  using element_type = Impl;
  /// An empty handle, to be assigned later (`nn::Linear fc{nullptr};`).
  /// (A template so that a literal 0, as in nn::Softmax(0), is not taken for nullptr.)
  template <class T>
    requires std::same_as<T, std::nullptr_t>
  ModuleHolder(T) {}  // NOLINT
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}  // NOLINT

  Impl* operator->() const { return checked(); }
  Impl& operator*() const { return *checked(); }
  Impl* get() const { return impl_.get(); }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return impl_ != nullptr; }
  operator std::shared_ptr<Module>() const { return impl_; }  // NOLINT

  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return detail::call_forward(*checked(), std::forward<Args>(args)...);
  }

 private:
  Impl* checked() const {
    if (!impl_) fail("ModuleHolder", "accessing an empty module handle (constructed from nullptr)");
    return impl_.get();
  }
  std::shared_ptr<Impl> impl_;
};

template <class Impl>
std::ostream& operator<<(std::ostream& os, const ModuleHolder<Impl>& m) {
  return os << *m;
}

}  // namespace ember::nn
