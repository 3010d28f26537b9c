// nn::Module: registration, traversal, conversions, state dicts, hooks and repr, following
// torch/nn/modules/module.py (1.13) closely enough that names, orders and messages match.
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "autograd/function.h"
#include "core/tensor_impl_mutators.h"
#include "ember/autograd.h"
#include "ember/creation.h"

namespace ember::nn {

Module::~Module() = default;

namespace {

// The class of `m` without template arguments and namespaces ("ember::nn::LinearImpl" ->
// "LinearImpl").
std::string class_name(const Module& m) {
  const char* mangled = typeid(m).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string full = status == 0 ? demangled.get() : mangled;
  if (auto lt = full.find('<'); lt != std::string::npos) full.resize(lt);
  if (auto colon = full.rfind("::"); colon != std::string::npos) full = full.substr(colon + 2);
  return full;
}

}  // namespace

std::string Module::name() const {
  std::string full = class_name(*this);
  if (full.size() > 4 && full.ends_with("Impl")) full.resize(full.size() - 4);
  return full;
}

// LibTorch's words, naming the class as written (NetImpl).
std::shared_ptr<Module> Module::clone(const std::optional<Device>&) const {
  const std::string cls = class_name(*this);
  throw Error("clone() has not been implemented for " + cls + ". Subclass torch::nn::Cloneable<" +
              cls + "> instead of torch::nn::Module to inherit the ability to clone.");
}

// ── registration ──────────────────────────────────────────────────────────
namespace {
// The child named `name` in a module's (name, module) list, or end().
template <class Children>
auto find_child(Children& children, const std::string& name) {
  return std::find_if(children.begin(), children.end(),
                      [&](const auto& child) { return child.first == name; });
}
}  // namespace

void Module::check_new_name(const std::string& name, const char* op, const char* kind) const {
  EMBER_CHECK(!name.empty(), op, kind, " name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, op, kind, " name can't contain \".\", got \"",
              name, "\"");
  // A name belongs to one kind of state only (PyTorch: "attribute 'x' already exists").
  auto taken = [&](const std::vector<Slot>& slots) {
    for (const Slot& s : slots)
      if (s.name == name) return true;
    return false;
  };
  bool clash = false;
  if (std::string(kind) != "parameter") clash |= taken(parameters_);
  if (std::string(kind) != "buffer") clash |= taken(buffers_);
  if (std::string(kind) != "module") clash |= find_child(children_, name) != children_.end();
  EMBER_CHECK(!clash, op, "attribute '", name, "' already exists");
}

Tensor Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "register_parameter", "parameter");
  if (tensor.defined()) {
    // A parameter is a leaf of its own (Python's nn.Parameter(t) wraps t's data).
    if (!tensor.is_leaf()) tensor = tensor.detach();
    tensor.requires_grad_(requires_grad);
  }
  for (Slot& s : parameters_)
    if (s.name == name) return s.tensor = tensor;
  parameters_.push_back({name, tensor, true});
  return tensor;
}

Tensor Module::register_buffer(const std::string& name, Tensor tensor, bool persistent) {
  check_new_name(name, "register_buffer", "buffer");
  for (Slot& s : buffers_)
    if (s.name == name) {
      s.persistent = persistent;
      return s.tensor = tensor;
    }
  buffers_.push_back({name, tensor, persistent});
  return tensor;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  check_new_name(name, "register_module", "module");
  EMBER_CHECK(module.get() != this, "register_module", "a module can't be its own child ('",
              name, "')");
  if (auto it = find_child(children_, name); it != children_.end())
    it->second = std::move(module);  // registering a name again replaces it in place
  else
    children_.emplace_back(name, std::move(module));
}

void Module::replace_child(const std::string& name, std::shared_ptr<Module> module) {
  EMBER_CHECK(module.get() != this, "replace_module", "a module can't be its own child ('", name,
              "')");
  auto it = find_child(children_, name);
  EMBER_CHECK(it != children_.end(), "replace_module", "Submodule '", name, "' is not defined");
  it->second = std::move(module);
}

void Module::unregister_module(const std::string& name) {
  auto it = find_child(children_, name);
  EMBER_CHECK(it != children_.end(), "unregister_module", "No Module with name `", name,
              "` is registered");
  children_.erase(it);
}

// ── traversal ─────────────────────────────────────────────────────────────
std::shared_ptr<Module> Module::self_ptr() const {
  // Modules on the stack have no owner: hand out a non-owning pointer.
  auto self = std::const_pointer_cast<Module>(weak_from_this().lock());
  if (self) return self;
  return std::shared_ptr<Module>(std::shared_ptr<Module>(), const_cast<Module*>(this));
}

NamedModules Module::named_modules(const std::string& prefix, bool include_self) const {
  NamedModules out;
  std::unordered_set<const Module*> seen;
  std::function<void(const Module&, const std::string&)> visit = [&](const Module& m,
                                                                      const std::string& p) {
    if (!seen.insert(&m).second) return;
    out.emplace_back(p, m.self_ptr());
    for (const auto& [n, child] : m.children_)
      if (child) visit(*child, p.empty() ? n : p + "." + n);
  };
  visit(*this, prefix);
  if (!include_self) out.erase(out.begin());
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_modules("", include_self)) out.push_back(m);
  return out;
}

NamedModules Module::named_children() const {
  NamedModules out;
  std::unordered_set<const Module*> seen;
  for (const auto& [n, m] : children_)
    if (m && seen.insert(m.get()).second) out.emplace_back(n, m);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_children()) out.push_back(m);
  return out;
}

namespace {

// PyTorch's _named_members: the modules' own tensors in module order, each tensor listed once.
template <class Get>
NamedTensors named_members(const Module& root, bool recurse, Get get) {
  NamedModules mods = recurse ? root.named_modules() : NamedModules{};
  NamedTensors out;
  std::unordered_set<const TensorImpl*> seen;
  auto add = [&](const Module& m, const std::string& prefix) {
    for (const auto& [n, t] : get(m)) {
      if (!t.defined() || !seen.insert(t.impl()).second) continue;
      out.emplace_back(prefix.empty() ? n : prefix + "." + n, t);
    }
  };
  if (recurse)
    for (const auto& [prefix, m] : mods) add(*m, prefix);
  else
    add(root, "");
  return out;
}

std::vector<Tensor> values(const NamedTensors& named) {
  std::vector<Tensor> out;
  out.reserve(named.size());
  for (const auto& [n, t] : named) out.push_back(t);
  return out;
}

}  // namespace

NamedTensors Module::named_parameters(bool recurse) const {
  return named_members(*this, recurse, [](const Module& m) {
    NamedTensors own;
    for (const Slot& s : m.parameters_) own.emplace_back(s.name, s.tensor);
    return own;
  });
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  return values(named_parameters(recurse));
}

NamedTensors Module::named_buffers(bool recurse) const {
  return named_members(*this, recurse, [](const Module& m) {
    NamedTensors own;
    for (const Slot& s : m.buffers_) own.emplace_back(s.name, s.tensor);
    return own;
  });
}

std::vector<Tensor> Module::buffers(bool recurse) const { return values(named_buffers(recurse)); }

// ── modes and conversions ─────────────────────────────────────────────────
Module& Module::train(bool on) {
  training_ = on;
  for (auto& [n, m] : children_)
    if (m) m->train(on);
  return *this;
}

namespace {

// Re-points t at fn(t)'s data in place (PyTorch's `param.data = fn(param)`), keeping the handle,
// its requires_grad and its grad slot.
void assign_data(const Tensor& t, const Tensor& converted) {
  if (converted.is_same(t)) return;
  TensorImplMutators::set_data(*t.impl(), *converted.impl());
}

}  // namespace

void Module::convert(const std::function<Tensor(const Tensor&)>& fn) {
  NoGradGuard no_grad;
  for (std::vector<Slot>* slots : {&parameters_, &buffers_})
    for (Slot& s : *slots) {
      if (!s.tensor.defined()) continue;
      assign_data(s.tensor, fn(s.tensor.detach()));
      if (const Tensor& g = s.tensor.grad(); g.defined()) assign_data(g, fn(g.detach()));
    }
}

namespace {

void check_module_dtype(Dtype dtype) {
  EMBER_CHECK(is_floating_point(dtype), "Module.to",
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=",
              dtype);
}

}  // namespace

// Each to() converts the children through their own (possibly overridden) to(), then this
// module's tensors. A tensor shared between modules is met again already converted, and
// converting it again leaves it as it is.
Module& Module::to(Dtype dtype) {
  to(dtype, false);
  return *this;
}

Module& Module::to(Device device) {
  to(device, false);
  return *this;
}

Module& Module::to(Device device, Dtype dtype) {
  to(device, dtype, false);
  return *this;
}

void Module::to(Dtype dtype, bool non_blocking) {
  check_module_dtype(dtype);
  for (auto& [name, child] : children_)
    if (child) child->to(dtype, non_blocking);
  // Only floating-point state converts: integer buffers (num_batches_tracked) keep their dtype.
  convert([dtype](const Tensor& t) { return t.is_floating_point() ? t.to(dtype) : t; });
}

void Module::to(Device device, bool non_blocking) {
  for (auto& [name, child] : children_)
    if (child) child->to(device, non_blocking);
  convert([device](const Tensor& t) { return t.to(device); });
}

void Module::to(Device device, Dtype dtype, bool non_blocking) {
  check_module_dtype(dtype);
  for (auto& [name, child] : children_)
    if (child) child->to(device, dtype, non_blocking);
  convert([device, dtype](const Tensor& t) {
    return t.is_floating_point() ? t.to(device, dtype) : t.to(device);
  });
}

// ── cloning: the steps Cloneable<Derived>::clone (nn/cloneable.h) takes on the copy ──────
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
    assign_data(it->second, device && t.device() != *device ? t.to(*device) : t.clone());
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

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor& g = p.mutable_grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      g = Tensor();
    } else {
      // As PyTorch: a grad with history is detached first; then it is zeroed in place.
      if (g.grad_fn()) g.detach_();
      else g.requires_grad_(false);
      g.zero_();
    }
  }
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& [n, m] : children_)
    if (m) m->apply(fn);
  fn(*this);
  return *this;
}

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

// ── state dicts ───────────────────────────────────────────────────────────
void Module::save_to(StateDict& out, const std::string& prefix) const {
  for (const Slot& s : parameters_)
    if (s.tensor.defined()) out.insert(prefix + s.name, s.tensor.detach());
  for (const Slot& s : buffers_)
    if (s.tensor.defined() && s.persistent) out.insert(prefix + s.name, s.tensor.detach());
  for (const auto& [n, m] : children_)
    if (m) m->save_to(out, prefix + n + ".");
}

StateDict Module::state_dict() const {
  StateDict out;
  save_to(out, "");
  return out;
}

namespace {

std::string torch_size(IntArrayRef sizes) {
  std::ostringstream os;
  os << "torch.Size([";
  for (size_t i = 0; i < sizes.size(); ++i) os << (i ? ", " : "") << sizes[i];
  os << "])";
  return os.str();
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", \"" : "\"") + keys[i] + "\"";
  return out;
}

}  // namespace

// PyTorch's _load_from_state_dict for one module: copy what matches, note what is missing, and
// report keys under this prefix that name nothing here (their first component is neither a
// local tensor nor a child).
void Module::load_from(const StateDict& sd, const std::string& prefix, IncompatibleKeys& keys,
                       std::vector<std::string>& errors) {
  std::vector<const Slot*> local;
  for (const Slot& s : parameters_)
    if (s.tensor.defined()) local.push_back(&s);
  for (const Slot& s : buffers_)
    if (s.tensor.defined() && s.persistent) local.push_back(&s);
  for (const Slot* s : local) {
    const std::string key = prefix + s->name;
    if (!sd.contains(key)) {
      keys.missing_keys.push_back(key);
      continue;
    }
    Tensor input = sd.at(key);
    // Backward compatibility kept by PyTorch: a 1-element vector loads into a 0-d tensor.
    if (s->tensor.dim() == 0 && input.dim() == 1) input = input.select(0, 0);
    if (input.sizes() != s->tensor.sizes()) {
      errors.push_back("size mismatch for " + key + ": copying a param with shape " +
                       torch_size(input.sizes()) +
                       " from checkpoint, the shape in current model is " +
                       torch_size(s->tensor.sizes()) + ".");
      continue;
    }
    try {
      NoGradGuard no_grad;
      Tensor target = s->tensor;
      target.copy_(input);
    } catch (const Error& e) {
      errors.push_back("While copying the parameter named \"" + key +
                       "\", whose dimensions in the model are " + torch_size(s->tensor.sizes()) +
                       " and whose dimensions in the checkpoint are " +
                       torch_size(input.sizes()) + ", an exception occurred : (" + e.what() +
                       ").");
    }
  }
  for (const auto& [key, value] : sd) {
    if (!key.starts_with(prefix)) continue;
    const std::string rest = key.substr(prefix.size());
    const std::string first = rest.substr(0, rest.find('.'));
    bool known = false;
    for (const Slot* s : local) known |= s->name == first;
    for (const auto& [n, m] : children_) known |= m && n == first;
    if (!known) keys.unexpected_keys.push_back(key);
  }
  for (const auto& [n, m] : children_)
    if (m) m->load_from(sd, prefix + n + ".", keys, errors);
}

namespace {

// The reference's pitfall 2: a state dict saved from ddp->state_dict() has every key prefixed
// with "module.". When every unexpected key has it and stripping it would match, say so.
std::string ddp_prefix_hint(const StateDict& state_dict, const IncompatibleKeys& keys) {
  static const std::string prefix = "module.";
  if (keys.unexpected_keys.empty() || keys.missing_keys.empty()) return "";
  for (const std::string& k : keys.unexpected_keys)
    if (k.rfind(prefix, 0) != 0) return "";
  bool fixes_one = false;
  for (const std::string& k : keys.missing_keys) fixes_one |= state_dict.contains(prefix + k);
  if (!fixes_one) return "";
  return "\n\tThe state_dict's keys start with \"module.\": it was saved from a "
         "DistributedDataParallel (ddp->state_dict()). Save ddp->module()->state_dict() instead, "
         "or strip the prefix before loading with "
         "nn::utils::consume_prefix_in_state_dict_if_present(state_dict, \"module.\").";
}

}  // namespace

IncompatibleKeys Module::load_state_dict(const StateDict& state_dict,
                                         LoadStateDictOptions options) {
  IncompatibleKeys keys;
  std::vector<std::string> errors;
  load_from(state_dict, "", keys, errors);
  if (options.strict) {
    if (!keys.unexpected_keys.empty())
      errors.insert(errors.begin(),
                    "Unexpected key(s) in state_dict: " + quoted_list(keys.unexpected_keys) + ". ");
    if (!keys.missing_keys.empty())
      errors.insert(errors.begin(),
                    "Missing key(s) in state_dict: " + quoted_list(keys.missing_keys) + ". ");
  }
  if (!errors.empty()) {
    std::string text = "Error(s) in loading state_dict for " + name() + ":";
    for (const std::string& e : errors) text += "\n\t" + e;
    text += ddp_prefix_hint(state_dict, keys);
    fail("load_state_dict", text);
  }
  return keys;
}

// ── hooks ─────────────────────────────────────────────────────────────────
bool Module::has_hooks() const {
  return (pre_hooks_ && !pre_hooks_->entries.empty()) ||
         (forward_hooks_ && !forward_hooks_->entries.empty()) ||
         (backward_hooks_ && !backward_hooks_->entries.empty()) || forward_wrapper_;
}

// Note [Full backward hooks]
// As PyTorch's BackwardHook: the inputs that require grad pass through one identity node
// ("BackwardHookFunctionBackward") before forward and the output through another after it. The
// output's node runs first in backward and keeps grad_output; the inputs' node receives all
// grad_inputs at once, calls the hooks and returns their replacements. With no input requiring
// grad the hooks run from the output's node with undefined grad_inputs. The hooks registered at
// forward time are the ones called.
namespace {

struct BackwardHookCall {
  Module* module;
  std::vector<BackwardHook> hooks;
  size_t num_inputs = 0;
  bool no_input_node = false;  // no input requires grad: the output's node calls the hooks
  std::vector<Tensor> grad_output;

  std::vector<Tensor> run(std::vector<Tensor> grad_input) {
    for (auto& hook : hooks) {
      std::vector<Tensor> replaced = hook(*module, grad_input, grad_output);
      if (replaced.empty()) continue;
      EMBER_CHECK(replaced.size() == grad_input.size(), "register_full_backward_hook",
                  "backward hook returned ", replaced.size(), " gradients for ",
                  grad_input.size(), " inputs");
      grad_input = std::move(replaced);
    }
    return grad_input;
  }
};

}  // namespace

Tensor Module::call_with_hooks(std::vector<Tensor> inputs,
                               const std::function<Tensor(const std::vector<Tensor>&)>& forward) {
  if (pre_hooks_)
    for (auto entries = pre_hooks_->entries; auto& e : entries) {
      std::vector<Tensor> replaced = e.fn(*this, inputs);
      if (!replaced.empty()) inputs = std::move(replaced);
    }

  std::shared_ptr<BackwardHookCall> bw;
  if (backward_hooks_ && !backward_hooks_->entries.empty() && is_grad_enabled()) {
    bw = std::make_shared<BackwardHookCall>();
    bw->module = this;
    for (auto& e : backward_hooks_->entries) bw->hooks.push_back(e.fn);
    bw->num_inputs = inputs.size();
    std::vector<size_t> slots;  // inputs that require grad go through the node
    std::vector<Tensor> through;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined() && inputs[i].requires_grad()) {
        slots.push_back(i);
        through.push_back(inputs[i]);
      }
    autograd::Recorder rec("backward_hook", through);
    bw->no_input_node = !rec;
    if (rec) {
      std::vector<Tensor> outs;
      for (const Tensor& t : through) outs.push_back(t.detach());
      rec.record("BackwardHookFunctionBackward", outs, {},
                 [bw, slots](const autograd::Grads& g, const autograd::Saved&) {
                   std::vector<Tensor> grad_input(bw->num_inputs);
                   for (size_t k = 0; k < slots.size(); ++k) grad_input[slots[k]] = g[k];
                   grad_input = bw->run(std::move(grad_input));
                   autograd::TensorList result;
                   for (size_t k = 0; k < slots.size(); ++k) result.push_back(grad_input[slots[k]]);
                   return result;
                 });
      for (size_t k = 0; k < slots.size(); ++k) inputs[slots[k]] = outs[k];
    }
  }

  Tensor output = forward_wrapper_ ? forward_wrapper_(inputs, forward) : forward(inputs);

  if (forward_hooks_)
    for (auto entries = forward_hooks_->entries; auto& e : entries) {
      Tensor replaced = e.fn(*this, inputs, output);
      if (replaced.defined()) output = replaced;
    }

  if (bw) {
    autograd::Recorder rec("backward_hook", {&output});
    if (rec) {
      Tensor out = output.detach();
      rec.record("BackwardHookFunctionBackward", {out}, {},
                 [bw](const autograd::Grads& g, const autograd::Saved&) {
                   bw->grad_output = g;
                   if (bw->no_input_node) bw->run(std::vector<Tensor>(bw->num_inputs));
                   return autograd::TensorList(g);
                 });
      output = out;
    }
  }
  return output;
}

// ── repr ──────────────────────────────────────────────────────────────────
namespace {

// PyTorch's _addindent: every line after the first gains `spaces` leading spaces.
std::string add_indent(const std::string& s, int spaces) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out.append(size_t(spaces), ' ');
  }
  return out;
}

}  // namespace

std::string Module::repr() const {
  std::vector<std::string> extra_lines, child_lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) {
    std::istringstream is(extra);
    for (std::string line; std::getline(is, line);) extra_lines.push_back(line);
  }
  for (const auto& [n, m] : children_)
    child_lines.push_back("(" + n + "): " + (m ? add_indent(m->repr(), 2) : "None"));
  std::string out = name() + "(";
  if (extra_lines.size() == 1 && child_lines.empty()) {
    out += extra_lines[0];
  } else if (!extra_lines.empty() || !child_lines.empty()) {
    for (const auto* lines : {&extra_lines, &child_lines})
      for (const std::string& line : *lines) out += "\n  " + line;
    out += "\n";
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.repr(); }

}  // namespace ember::nn
