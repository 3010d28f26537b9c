// FunctionNode, Recorder and sum_to: the glue between an op's forward and its backward lambda.
#include "autograd/function.h"

#include "autograd/autograd_meta.h"
#include "ember/creation.h"
#include "ember/reduce.h"

namespace ember::autograd {

TensorList FunctionNode::apply(TensorList&& grads) {
  Saved unpacked;
  unpacked.reserve(saved.size());
  const std::shared_ptr<Node> self = shared_from_this();
  for (const SavedTensor& s : saved) unpacked.push_back(s.unpack(self));
  return fn_(grads, unpacked);
}

void FunctionNode::release_variables() {
  for (SavedTensor& s : saved) s.reset();
}

namespace {
bool any_requires_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }
}  // namespace

Recorder::Recorder(const char* op, std::initializer_list<const Tensor*> inputs)
    : scope_(op, inputs) {
  if (!is_grad_enabled()) return;
  bool any = false;
  for (const Tensor* t : inputs) any |= t && any_requires_grad(*t);
  if (!any) return;
  for (const Tensor* t : inputs) add_input(t ? *t : Tensor());
  begin();
}

Recorder::Recorder(const char* op, const std::vector<Tensor>& inputs)
    : scope_(op, std::span<const Tensor>(inputs)) {
  if (!is_grad_enabled()) return;
  bool any = false;
  for (const Tensor& t : inputs) any |= any_requires_grad(t);
  if (!any) return;
  for (const Tensor& t : inputs) add_input(t);
  begin();
}

Recorder::Recorder(InPlace, const char* op, const Tensor& self,
                   std::initializer_list<const Tensor*> others)
    : scope_(op, self, others) {
  EMBER_CHECK(!self.is_inference() || is_inference_mode_enabled(), op,
              "Inplace update to inference tensor outside InferenceMode is not allowed. You can "
              "make a clone to get a normal tensor before doing inplace update.");
  if (!is_grad_enabled()) return;
  // A view made under no_grad of a base that requires grad counts as requiring grad here, as
  // in PyTorch: writing through it would silently bypass the base's history.
  const bool no_grad_view = self.impl()->view_made_without_grad();
  bool any = any_requires_grad(self) ||
             (no_grad_view && Tensor(self.impl()->view_base()).requires_grad());
  for (const Tensor* t : others) any |= t && any_requires_grad(*t);
  if (!any) return;
  EMBER_CHECK(!no_grad_view, op,
              "a view created in no_grad mode is being modified in place with grad mode "
              "enabled, which is ambiguous and forbidden. Create the view and do the in-place "
              "both inside or both outside no_grad.");
  EMBER_CHECK(!(self.is_leaf() && self.requires_grad()), op,
              "a leaf Variable that requires grad is being used in an in-place operation.");
  if (const auto& base = self.impl()->view_base()) {
    const Tensor b(base);
    EMBER_CHECK(!(b.is_leaf() && b.requires_grad()), op,
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation.");
    view_base_ = b;
  }
  add_input(self);
  for (const Tensor* t : others) add_input(t ? *t : Tensor());
  begin();
}

void Recorder::add_input(const Tensor& t) {
  if (num_inputs_ < kInlineInputs) inline_inputs_[num_inputs_] = t;
  else more_inputs_.push_back(t);
  ++num_inputs_;
}

void Recorder::begin() {
  active_ = true;
  previous_grad_mode_ = is_grad_enabled();
  set_grad_enabled(false);
}

Recorder::~Recorder() {
  if (active_) set_grad_enabled(previous_grad_mode_);
}

std::shared_ptr<FunctionNode> Recorder::record(const char* name,
                                               std::initializer_list<Tensor> outputs,
                                               std::initializer_list<Tensor> saved, BackwardFn fn,
                                               std::initializer_list<Tensor> saved_outputs) {
  return record_outputs(name, outputs.begin(), outputs.size(), saved, std::move(fn),
                        saved_outputs);
}

std::shared_ptr<FunctionNode> Recorder::record(const char* name, const std::vector<Tensor>& outputs,
                                               std::initializer_list<Tensor> saved, BackwardFn fn,
                                               std::initializer_list<Tensor> saved_outputs) {
  return record_outputs(name, outputs.data(), outputs.size(), saved, std::move(fn),
                        saved_outputs);
}

std::shared_ptr<FunctionNode> Recorder::record_outputs(const char* name, const Tensor* outputs,
                                                       size_t num_outputs,
                                                       std::initializer_list<Tensor> saved,
                                                       BackwardFn fn,
                                                       std::initializer_list<Tensor> saved_outputs) {
  EMBER_CHECK(active_, name, "record() on an inactive Recorder");
  set_grad_enabled(previous_grad_mode_);
  active_ = false;
  auto node = std::make_shared<FunctionNode>(name, std::move(fn));
  std::vector<Edge> edges;
  std::vector<Node::InputMeta> meta;
  edges.reserve(num_inputs_);
  meta.reserve(num_inputs_);
  for (size_t i = 0; i < num_inputs_; ++i) {
    const Tensor& t = input(i);
    if (t.defined() && t.requires_grad()) {
      edges.push_back(gradient_edge(t));
      meta.push_back({DimVector(t.sizes()), t.dtype(), true});
    } else {
      edges.emplace_back();
      meta.emplace_back();
    }
  }
  node->set_next_functions(std::move(edges));
  node->set_input_meta(std::move(meta));
  node->set_num_outputs(uint32_t(num_outputs));
  node->saved.reserve(saved.size() + saved_outputs.size());
  for (const Tensor& t : saved) node->saved.emplace_back(t);
  if (view_base_.defined()) {
    rebase_view_history(node);
  } else {
    for (uint32_t i = 0; i < num_outputs; ++i) {
      const Tensor& out = outputs[i];
      if (out.defined() && out.is_floating_point()) set_history(out, node, i);
    }
  }
  for (const Tensor& t : saved_outputs) node->saved.emplace_back(t, /*is_output=*/true);
  if (is_anomaly_enabled()) node->set_creation_trace(capture_trace(name));
  return node;
}

// Note [In-place on views]
// y = base[0:2]; y.mul_(2) must change base's history too: base's gradient now flows through
// the multiplication for the elements y covers. As PyTorch does, the op's node `fn` is wrapped
// in a CopySlices node that becomes base's grad_fn: given base's gradient, it runs fn's backward
// on the strided piece the view covers and writes the result back, passing the rest through.
// The view's own grad_fn becomes an as_strided of the (rewritten) base. The write bumps the
// storage's version, so every other view of the base made in grad mode finds its recorded
// version out of date the next time its history is read (grad_fn, requires_grad, an op's
// edges) and regenerates it the same way: an as_strided of the base as it is now. A view whose
// base does not require grad keeps what it has.
// A view made under no_grad has no history, and which one it should get after its base is
// written is ambiguous (the write may be part of the graph or not), so, as PyTorch, using such
// a view in grad mode after the write is an error, and so is writing through it in grad mode
// when the write would be recorded. Under no_grad it stays usable as plain data.
namespace {

struct Geometry {
  DimVector sizes, strides;
  int64_t offset;
  explicit Geometry(const Tensor& t)
      : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()) {}
};

class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<FunctionNode> fn)
      : base_(base), view_(view), fn_(std::move(fn)) {}
  std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

  TensorList apply(TensorList&& grads) override {
    const Tensor& g = grads[0];
    // The base's gradient in the base's layout, so the view's strides address the same
    // elements in it as in the base.
    Tensor result = empty_strided(base_.sizes, base_.strides, {.dtype = g.dtype()});
    result.copy_(g);
    const int64_t offset = view_.offset - base_.offset;
    TensorList piece{result.as_strided(view_.sizes, view_.strides, offset).clone()};
    TensorList res = fn_->apply(std::move(piece));
    validate_outputs(*fn_, res);
    Tensor slot = result.as_strided(view_.sizes, view_.strides, offset);
    if (!res.empty() && res[0].defined()) slot.copy_(res[0]);
    else slot.zero_();
    res[0] = result;  // inputs 1.. of fn are ours too, unchanged
    return res;
  }

 private:
  Geometry base_, view_;
  std::shared_ptr<FunctionNode> fn_;
};

}  // namespace

void Recorder::rebase_view_history(const std::shared_ptr<FunctionNode>& fn) {
  const Tensor& view = input(0);
  const Tensor& base = view_base_;
  auto copy_slices = std::make_shared<CopySlices>(base, view, fn);
  std::vector<Edge> edges = fn->next_functions();
  std::vector<Node::InputMeta> meta = fn->input_meta();
  edges[0] = base.requires_grad() ? gradient_edge(base) : Edge{};
  meta[0] = {DimVector(base.sizes()), base.dtype(), true};
  copy_slices->set_next_functions(std::move(edges));
  copy_slices->set_input_meta(std::move(meta));
  set_history(base, copy_slices, 0);
  regenerate_view_history(view);  // an as_strided of the rewritten base
}

void regenerate_view_history(const Tensor& view) {
  const Tensor base(view.impl()->view_base());
  if (!base.requires_grad()) return;
  if (view.impl()->view_made_without_grad()) {
    EMBER_CHECK(!is_grad_enabled(), "autograd",
                "a view created in no_grad mode is used with grad mode enabled after its base "
                "(or another view of its base) was modified in place, which is ambiguous and "
                "forbidden. Create the view and do the in-place both inside or both outside "
                "no_grad, or use a detach()ed view.");
    return;
  }
  EnableGradGuard grad;
  const Tensor regenerated =
      base.as_strided(view.sizes(), view.strides(), view.storage_offset());
  set_history(view, regenerated.grad_fn(), regenerated.output_nr());
}

void validate_outputs(const Node& node, std::vector<Tensor>& outputs) {
  const auto& meta = node.input_meta();
  for (size_t i = 0; i < outputs.size() && i < meta.size(); ++i) {
    Tensor& g = outputs[i];
    if (!g.defined() || !meta[i].known) continue;
    const IntArrayRef want(meta[i].sizes);
    if (g.sizes() != want) {
      EMBER_CHECK(is_expandable_to(want, g.sizes()), "autograd", "Function ", node.name(),
                  " returned an invalid gradient at index ", i, " - got ", g.sizes(),
                  " but expected shape compatible with ", want);
      g = sum_to(g, want);
    }
    if (g.dtype() != meta[i].dtype) g = g.to(meta[i].dtype);
  }
}

bool is_expandable_to(IntArrayRef shape, IntArrayRef target) {
  const size_t n = shape.size(), m = target.size();
  if (n > m) return false;
  for (size_t i = 0; i < n; ++i) {
    const int64_t s = shape[n - 1 - i], t = target[m - 1 - i];
    if (s != t && s != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& g, IntArrayRef shape) {
  if (g.sizes() == shape) return g;
  const int64_t lead = g.dim() - int64_t(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (int64_t d = lead; d < g.dim(); ++d)
    if (shape[size_t(d - lead)] == 1 && g.size(d) != 1) dims.push_back(d);
  Tensor r = dims.empty() ? g : g.sum(IntArrayRef(dims), /*keepdim=*/true);
  return lead > 0 || r.sizes() != shape ? r.view(shape) : r;
}

}  // namespace ember::autograd
