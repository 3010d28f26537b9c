// Custom autograd functions (ember/custom_function.h): the node a Function<T>::apply records,
// over the Recorder the ops use.
#include "ember/custom_function.h"

#include <cxxabi.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "autograd/function.h"
#include "ember/creation.h"
#include "ember/error.h"

namespace ember::autograd {
namespace {

bool contains(const variable_list& list, const Tensor& t) {
  for (const Tensor& x : list)
    if (x.defined() && x.is_same(t)) return true;
  return false;
}

// The node's name: T's demangled name put in `format` at "{}". Nodes keep a const char* (the
// ops' names are literals), so each name is kept once for the life of the process.
const char* node_name(const std::type_info& type, std::string_view format) {
  static std::mutex mutex;
  static std::unordered_set<std::string> names;
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name(format);
  const size_t at = name.find("{}");
  name.replace(at == std::string::npos ? name.size() : at, at == std::string::npos ? 0 : 2,
               status == 0 && demangled ? demangled : type.name());
  std::free(demangled);
  std::lock_guard lock(mutex);
  return names.insert(std::move(name)).first->c_str();
}

// One forward output as backward sees it: its gradient comes from the node's slot, or is zeros
// of its shape (a non-differentiable output, or no gradient flowed and grads materialize).
struct OutputSlot {
  int slot = -1;  // among the node's outputs; -1: none
  bool defined = false;
  DimVector sizes;
  Dtype dtype = kFloat32;
  Device device;
};

}  // namespace

void AutogradContext::save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }

variable_list AutogradContext::get_saved_variables() const {
  return recorded_ ? unpacked_ : to_save_;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  dirty_.insert(dirty_.end(), inputs.begin(), inputs.end());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  non_differentiable_.insert(non_differentiable_.end(), outputs.begin(), outputs.end());
}

bool AutogradContext::needs_input_grad(size_t tensor_index) const {
  EMBER_CHECK(tensor_index < needs_input_grad_.size(), "needs_input_grad", "index ", tensor_index,
              " is out of range: forward has ", needs_input_grad_.size(), " tensor inputs");
  return needs_input_grad_[tensor_index];
}

namespace detail {

struct CustomFunctionCall::State {
  State(const char* name, const variable_list& inputs, std::shared_ptr<AutogradContext> context)
      : name(name), inputs(inputs), ctx(std::move(context)), recorder(name, inputs) {
    // forward runs without grad mode, as the ops' inner steps do; an active Recorder has
    // already turned it off until it records.
    if (!recorder) no_grad.emplace();
  }
  const char* name;
  variable_list inputs;
  std::shared_ptr<AutogradContext> ctx;
  Recorder recorder;
  std::optional<NoGradGuard> no_grad;
};

CustomFunctionCall::CustomFunctionCall(const std::type_info& function, std::string_view name_format,
                                       const variable_list& inputs,
                                       std::shared_ptr<AutogradContext> ctx) {
  const bool grad_mode = is_grad_enabled();
  ctx->needs_input_grad_.clear();
  for (const Tensor& t : inputs)
    ctx->needs_input_grad_.push_back(grad_mode && t.defined() && t.requires_grad());
  state_ = std::make_unique<State>(node_name(function, name_format), inputs, std::move(ctx));
}

CustomFunctionCall::~CustomFunctionCall() = default;

variable_list CustomFunctionCall::finish(variable_list outputs, Backward backward,
                                         size_t num_arguments,
                                         std::vector<size_t> tensor_positions) {
  State& s = *state_;
  AutogradContext& ctx = *s.ctx;
  s.no_grad.reset();
  std::vector<OutputSlot> slots;
  variable_list differentiable;
  for (Tensor& t : outputs) {
    if (!t.defined()) {
      slots.emplace_back();
      continue;
    }
    const bool is_differentiable = !contains(ctx.non_differentiable_, t);
    // An input returned as is becomes an alias with its own history, unless forward marked it
    // dirty (modified in place): then the input's own history moves to this node.
    if (contains(s.inputs, t) && !contains(ctx.dirty_, t)) t = t.alias();
    slots.push_back({is_differentiable ? int(differentiable.size()) : -1, true,
                     DimVector(t.sizes()), t.dtype(), t.device()});
    if (is_differentiable) differentiable.push_back(t);
  }
  ctx.dirty_.clear();
  ctx.non_differentiable_.clear();
  if (!s.recorder) return outputs;  // nothing needs a gradient: get_saved_variables reads to_save

  const char* name = s.name;
  auto context = s.ctx;
  auto fn = [context, backward = std::move(backward), slots, num_arguments,
             positions = std::move(tensor_positions),
             name](const Grads& grads, const Saved& saved) -> TensorList {
    AutogradContext& c = *context;
    variable_list g;
    g.reserve(slots.size());
    for (const OutputSlot& o : slots) {
      Tensor grad = o.slot >= 0 ? grads[size_t(o.slot)] : Tensor();
      if (!grad.defined() && o.defined && c.materialize_grads_)
        grad = zeros(o.sizes, {.dtype = o.dtype, .device = o.device});
      g.push_back(std::move(grad));
    }
    c.unpacked_ = saved;
    variable_list r = backward(&c, std::move(g));
    c.unpacked_.clear();
    // Extra gradients are allowed when undefined: a forward with a defaulted argument the call
    // left out (LibTorch's tutorial returns a bias gradient whether or not a bias was given).
    while (r.size() > num_arguments && !r.back().defined()) r.pop_back();
    EMBER_CHECK(r.size() == num_arguments, name,
                "function backward returned an incorrect number of gradients (expected ",
                num_arguments, ", got ", r.size(), ")");
    TensorList out;
    out.reserve(positions.size());
    size_t next = 0;
    for (size_t a = 0; a < r.size(); ++a) {
      if (next < positions.size() && positions[next] == a) {
        out.push_back(r[a]);
        ++next;
      } else {
        EMBER_CHECK(!r[a].defined(), name, "backward returned a gradient for forward argument ", a,
                    ", which is not a tensor: its entry must be undefined (Tensor())");
      }
    }
    return out;
  };
  auto node = s.recorder.record(name, differentiable, {}, std::move(fn));
  // What save_for_backward kept; this node's own outputs are kept without their grad_fn (which
  // would be a cycle).
  for (const Tensor& t : ctx.to_save_) {
    if (t.defined())
      node->saved.emplace_back(t, contains(differentiable, t));
    else
      node->saved.emplace_back();
  }
  ctx.to_save_.clear();
  ctx.recorded_ = true;
  return outputs;
}

}  // namespace detail
}  // namespace ember::autograd
