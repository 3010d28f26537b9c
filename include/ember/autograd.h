// Autograd: grad modes, the backward graph's nodes, and the entry points of the engine.
//
//   Tensor x = tensor(2.0, {.requires_grad = true}), y = tensor(3.0, {.requires_grad = true});
//   Tensor c = (x * y + x).pow(2);      // c.grad_fn()->name() == "PowBackward0"
//   c.backward();                       // x.grad() == 64, y.grad() == 32
//   autograd::grad({c}, {x}, {.retain_graph = true});
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ── grad modes (thread-local, like PyTorch) ─────────────────────────────
bool is_grad_enabled();
void set_grad_enabled(bool enabled);
bool is_inference_mode_enabled();

/// Disables graph recording in a scope (torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// Re-enables graph recording inside a no-grad scope (torch.enable_grad()).
class EnableGradGuard {
 public:
  EnableGradGuard();
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

/// torch.inference_mode(): no graph, and tensors created inside can never enter autograd later.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;

 private:
  bool previous_grad_, previous_inference_;
};

namespace autograd {

class Node;

/// An input of a Node: which node receives the gradient, and as which of its inputs.
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool is_valid() const { return function != nullptr; }
};

/// A function of the backward graph (a tensor's grad_fn). apply() maps the gradients of the
/// forward op's outputs to the gradients of its inputs, one per next edge (undefined = no
/// gradient). Ops subclass it next to their forward (e.g. MulBackward0 in src/ops/binary.cpp).
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's name: "MulBackward0", "AccumulateGrad", ...
  virtual std::string name() const = 0;
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grad_outputs) = 0;
  /// Frees saved tensors; a later apply that needs them raises the retain_graph error.
  virtual void release_variables() {}

  const std::vector<Edge>& next_functions() const { return next_; }
  void set_next_functions(std::vector<Edge> edges) { next_ = std::move(edges); }

  /// Shape and dtype of each forward input (parallel to next_functions()): the engine sums a
  /// broadcast gradient back to the input's shape and casts it to the input's dtype, so
  /// backward formulas may return gradients in the broadcast shape.
  struct InputMeta {
    DimVector sizes;
    Dtype dtype = kFloat32;
    bool known = false;  // false: the engine passes the gradient through unchecked
  };
  const std::vector<InputMeta>& input_meta() const { return input_meta_; }
  void set_input_meta(std::vector<InputMeta> meta) { input_meta_ = std::move(meta); }
  /// Creation order; the engine runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }
  /// Number of forward outputs (gradient slots this node receives).
  uint32_t num_outputs() const { return num_outputs_; }
  void set_num_outputs(uint32_t n) { num_outputs_ = n; }

  /// Hooks on the gradient of forward output `output_nr` before apply (Tensor::register_hook
  /// and retain_grad on non-leaf tensors); a hook may return a replacement gradient.
  using GradHook = std::function<Tensor(const Tensor&)>;
  uint64_t add_pre_hook(uint32_t output_nr, GradHook hook);
  bool remove_pre_hook(uint64_t id);
  void run_pre_hooks(std::vector<Tensor>& grads) const;

  /// Where the forward op was created (filled only in anomaly mode).
  const std::string& creation_trace() const { return creation_trace_; }
  void set_creation_trace(std::string trace) { creation_trace_ = std::move(trace); }

 protected:
  std::vector<Edge> next_;

 private:
  struct PreHook {
    uint64_t id;
    uint32_t output_nr;
    GradHook fn;
  };
  uint64_t sequence_nr_;
  uint32_t num_outputs_ = 1;
  std::vector<InputMeta> input_meta_;
  std::vector<PreHook> pre_hooks_;
  std::string creation_trace_;
};

struct GradOptions {
  std::vector<Tensor> grad_outputs = {};   // default: ones for scalar outputs
  std::optional<bool> retain_graph = {};   // default: create_graph
  bool create_graph = false;
  bool allow_unused = false;
};

/// Gradients of `outputs` with respect to `inputs` (torch.autograd.grad); does not touch .grad.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         GradOptions options = {});
/// Accumulates gradients of `tensors` into the leaves' .grad (torch.autograd.backward).
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              std::optional<bool> retain_graph = {}, bool create_graph = false);

struct GradcheckOptions {
  double eps = 1e-6;   // central-difference step
  double atol = 1e-5;  // |analytical - numerical| <= atol + rtol * |numerical|, elementwise
  double rtol = 1e-3;
  std::vector<Tensor> grad_outputs = {};  // gradgradcheck: the v of v^T J (default: fixed values)
};
using TensorsFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
using TensorFunction = std::function<Tensor(const std::vector<Tensor>&)>;

/// torch.autograd.gradcheck: compares the Jacobian from backward() with central differences,
/// for every float64 input that requires grad and every floating output. Returns true, or
/// throws ember::Error naming the output, the input and both Jacobians.
///
///   Tensor x = randn({3, 4}, {.dtype = kFloat64}).requires_grad_();
///   autograd::gradcheck([](const auto& in) { return in[0].exp().sum(1); }, {x});
bool gradcheck(const TensorsFunction& fn, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options = {});
bool gradcheck(const TensorFunction& fn, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options = {});
/// torch.autograd.gradgradcheck: gradcheck of the backward itself (built with create_graph)
/// with respect to the inputs and the output gradients.
bool gradgradcheck(const TensorsFunction& fn, const std::vector<Tensor>& inputs,
                   const GradcheckOptions& options = {});
bool gradgradcheck(const TensorFunction& fn, const std::vector<Tensor>& inputs,
                   const GradcheckOptions& options = {});

/// Anomaly mode: nodes remember where they were created, and a backward that produces NaN/Inf
/// raises an ember::Error naming that op. Off by default.
void set_detect_anomaly(bool enabled);
bool is_anomaly_enabled();
class DetectAnomalyGuard {
 public:
  DetectAnomalyGuard();
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_;
};

namespace graph {

/// Hooks on what autograd saves for backward (torch.autograd.graph.saved_tensors_hooks): inside
/// the region every saved tensor goes through pack, which may return anything in its place (a
/// placeholder, a copy elsewhere), and the backward gets unpack(that) back. Regions nest (the
/// innermost applies) and are per thread. Tensors saved with hooks skip the in-place version
/// check, as in PyTorch. Activation checkpointing (ember/utils/checkpoint.h) is built on them.
using PackHook = std::function<std::any(const Tensor&)>;
using UnpackHook = std::function<Tensor(const std::any&)>;

class saved_tensors_hooks {  // NOLINT: PyTorch's spelling
 public:
  saved_tensors_hooks(PackHook pack, UnpackHook unpack);
  ~saved_tensors_hooks();
  saved_tensors_hooks(const saved_tensors_hooks&) = delete;
  saved_tensors_hooks& operator=(const saved_tensors_hooks&) = delete;
};

}  // namespace graph
}  // namespace autograd
}  // namespace ember
