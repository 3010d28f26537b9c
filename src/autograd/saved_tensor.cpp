// Saved tensors: version checks against in-place modification, release after backward, and the
// anomaly-mode trace of where a node was created.
#include <execinfo.h>

#include <vector>

#include "autograd/saved_tensor.h"

namespace ember::autograd {

// A saved_tensors_hooks region's pair. Not in an anonymous namespace: SavedTensor::Hooked, a
// member of a class with linkage, holds one.
struct SavedTensorHookPair {
  graph::PackHook pack;
  graph::UnpackHook unpack;
};

namespace {
// The calling thread's saved_tensors_hooks regions, innermost last.
thread_local std::vector<std::shared_ptr<const SavedTensorHookPair>> hook_stack;
}  // namespace

namespace graph {
saved_tensors_hooks::saved_tensors_hooks(PackHook pack, UnpackHook unpack) {
  EMBER_CHECK(pack && unpack, "saved_tensors_hooks", "both a pack and an unpack hook are needed");
  hook_stack.push_back(std::make_shared<const SavedTensorHookPair>(
      SavedTensorHookPair{std::move(pack), std::move(unpack)}));
}
saved_tensors_hooks::~saved_tensors_hooks() { hook_stack.pop_back(); }
}  // namespace graph

struct SavedTensor::Hooked {
  std::shared_ptr<const SavedTensorHookPair> hooks;
  std::any packed;
};

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  EMBER_CHECK(!t.is_inference(), "autograd",
              "Inference tensors cannot be saved for backward. To work around you can make a "
              "clone to get a normal tensor and use it in autograd.");
  version_ = t._version();
  output_nr_ = t.output_nr();
  if (!hook_stack.empty()) [[unlikely]] {
    // An output is packed without its grad_fn, which would make the node own itself.
    const auto& hooks = hook_stack.back();
    hooked_ =
        std::make_shared<const Hooked>(Hooked{hooks, hooks->pack(is_output ? t.detach() : t)});
    return;
  }
  data_ = is_output ? t.detach() : t;
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner) const {
  EMBER_CHECK(!released_, "autograd",
              "Trying to backward through the graph a second time (or directly access saved "
              "tensors after they have already been freed). Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd::grad(). Specify "
              "retain_graph=true if you need to backward through the graph a second time or if "
              "you need to access saved tensors after calling backward.");
  if (hooked_) [[unlikely]] {
    Tensor t = hooked_->hooks->unpack(hooked_->packed);
    if (!is_output_ || !t.defined()) return t;
    t = t.detach();
    if (owner && is_grad_enabled()) set_history(t, owner, output_nr_);
    return t;
  }
  if (!data_.defined()) return data_;
  EMBER_CHECK(data_._version() == version_, "autograd",
              "one of the variables needed for gradient computation has been modified by an "
              "inplace operation: [", data_.dtype(), " ", data_.sizes(), "], which is ",
              is_output_ ? "output " : "an input of ", is_output_ ? std::to_string(output_nr_) + " of " : "",
              owner ? owner->name() : std::string("a node"), ", is at version ", data_._version(),
              "; expected version ", version_, " instead. Hint: enable anomaly detection to find "
              "the operation that failed to compute its gradient.");
  if (!is_output_) return data_;
  // Re-attach the output to its node so a double backward can flow through it.
  Tensor t = data_.detach();
  if (owner && is_grad_enabled()) set_history(t, owner, output_nr_);
  return t;
}

std::string capture_trace(const std::string& name) {
  void* frames[16];
  const int n = backtrace(frames, 16);
  std::string out = "  " + name + " created by:\n";
  char** symbols = backtrace_symbols(frames, n);
  for (int i = 2; symbols && i < n; ++i) out += std::string("    ") + symbols[i] + "\n";
  free(symbols);
  return out;
}

}  // namespace ember::autograd
