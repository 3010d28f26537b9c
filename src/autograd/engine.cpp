// The backward engine: a dependency-counted pass over the graph reachable from the roots,
// running nodes latest-created first, summing gradients that meet at one input, and either
// accumulating into leaves (backward) or capturing the gradients of chosen inputs (grad).
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "autograd/final_callbacks.h"
#include "autograd/function.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/reduce.h"
#include "profiler/recorder.h"

namespace ember::autograd {
namespace {

struct Capture {
  uint32_t slot;  // which gradient input of the node
  size_t index;   // position in the result of grad()
};

struct GraphTask {
  bool keep_graph = false;
  bool accumulate = true;  // false for autograd::grad: leaves' .grad stay untouched
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::unordered_map<Node*, std::vector<Capture>> captures;
  std::vector<Tensor> captured;
  // grad() keys captures by node address: the inputs' AccumulateGrad nodes (held only weakly by
  // their tensors when no graph edge points at them) must live until the pass ends.
  std::vector<std::shared_ptr<Node>> keep_alive;
  // queue_callback(): run once the pass has finished, in the order queued.
  std::vector<std::function<void()>> final_callbacks;
};

// The pass running on this thread, for queue_callback (null outside backward).
thread_local GraphTask* t_current_task = nullptr;

void add_gradient(std::vector<Tensor>& buffer, const Node& node, uint32_t slot, Tensor g) {
  if (buffer.size() < node.num_outputs()) buffer.resize(node.num_outputs());
  Tensor& b = buffer[slot];
  b = b.defined() ? b + g : std::move(g);  // out of place: g may be shared with other edges
}

void count_dependencies(GraphTask& task, const std::vector<Node*>& roots) {
  std::vector<Node*> stack(roots);
  std::unordered_map<Node*, bool> seen;
  for (Node* r : roots) seen[r] = true;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_functions()) {
      if (!e.is_valid()) continue;
      Node* next = e.function.get();
      ++task.dependencies[next];
      if (!seen[next]) {
        seen[next] = true;
        stack.push_back(next);
      }
    }
  }
}

void check_anomaly(const Node& node, const std::vector<Tensor>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& g = outputs[i];
    if (!g.defined() || !g.is_floating_point() || g.numel() == 0) continue;
    NoGradGuard no_grad;
    if (g.isfinite().all().item<bool>()) continue;
    const bool nan = g.isnan().any().item<bool>();
    fail("autograd", "Function '", node.name(), "' returned ", nan ? "nan" : "inf",
         " values in its ", i, "th output.",
         node.creation_trace().empty()
             ? std::string(" (enable autograd::set_detect_anomaly(true) to see where the forward "
                           "op was created)")
             : "\nThe forward op was created at:\n" + node.creation_trace());
  }
}

// Note [Backward events]
// With a profile recording, each node run is two ranges named as PyTorch 1.13 names them:
// "autograd::engine::evaluate_function: MulBackward0" around the whole step (hooks, apply,
// output checks, passing gradients on) and "MulBackward0" around apply(); AccumulateGrad is
// "torch::autograd::AccumulateGrad", as PyTorch spells it. Nothing happens when none records.
class NodeEvents {
 public:
  explicit NodeEvents(const Node& node) {
    if (!profiler::detail::on()) return;
    name_ = dynamic_cast<const AccumulateGrad*>(&node) ? "torch::autograd::AccumulateGrad"
                                                       : node.name();
    outer_ = profiler::detail::begin_range(profiler::EventKind::Autograd,
                                           "autograd::engine::evaluate_function: " + name_);
  }
  ~NodeEvents() {
    profiler::detail::end_range(inner_);  // apply() threw
    profiler::detail::end_range(outer_);
  }
  NodeEvents(const NodeEvents&) = delete;
  NodeEvents& operator=(const NodeEvents&) = delete;
  void begin_apply() {
    if (outer_) inner_ = profiler::detail::begin_range(profiler::EventKind::Autograd, name_);
  }
  void end_apply() { profiler::detail::end_range(std::exchange(inner_, 0)); }

 private:
  std::string name_;
  uint64_t outer_ = 0, inner_ = 0;
};

void execute(GraphTask& task, const std::vector<Edge>& roots, std::vector<Tensor> root_grads,
             bool create_graph) {
  struct CurrentTask {  // a nested backward (inside a hook) has its own callbacks
    GraphTask* previous;
    ~CurrentTask() { t_current_task = previous; }
  } current{std::exchange(t_current_task, &task)};
  std::vector<Node*> root_nodes;
  for (size_t i = 0; i < roots.size(); ++i) {
    Node* n = roots[i].function.get();
    root_nodes.push_back(n);
    add_gradient(task.buffers[n], *n, roots[i].input_nr, std::move(root_grads[i]));
  }
  count_dependencies(task, root_nodes);

  auto later_first = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr() < b->sequence_nr();
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>,
                      decltype(later_first)>
      ready(later_first);
  std::unordered_map<Node*, bool> queued;
  for (const Edge& r : roots) {
    Node* n = r.function.get();
    if (task.dependencies[n] == 0 && !queued[n]) {
      queued[n] = true;
      ready.push(r.function);
    }
  }

  // The backward runs with grad mode on only when its own graph is wanted (double backward).
  const bool previous_mode = is_grad_enabled();
  set_grad_enabled(create_graph);
  struct Restore {
    bool mode;
    ~Restore() { set_grad_enabled(mode); }
  } restore{previous_mode};

  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    NodeEvents events(*node);
    std::vector<Tensor> grads = std::move(task.buffers[node.get()]);
    task.buffers.erase(node.get());
    grads.resize(node->num_outputs());
    node->run_pre_hooks(grads);
    if (auto c = task.captures.find(node.get()); c != task.captures.end())
      for (const Capture& cap : c->second) task.captured[cap.index] = grads[cap.slot];

    std::vector<Tensor> outputs;
    const bool skip = !task.accumulate && dynamic_cast<AccumulateGrad*>(node.get());
    bool any = false;
    for (const Tensor& g : grads) any |= g.defined();
    if (any && !skip) {
      events.begin_apply();
      outputs = node->apply(std::move(grads));
      events.end_apply();
      validate_outputs(*node, outputs);
      if (is_anomaly_enabled()) check_anomaly(*node, outputs);
    }
    if (!task.keep_graph) node->release_variables();

    const auto& next = node->next_functions();
    for (size_t i = 0; i < next.size(); ++i) {
      const Edge& e = next[i];
      if (!e.is_valid()) continue;
      if (i < outputs.size() && outputs[i].defined())
        add_gradient(task.buffers[e.function.get()], *e.function, e.input_nr, std::move(outputs[i]));
      if (--task.dependencies[e.function.get()] == 0) ready.push(e.function);
    }
  }
  // A callback may queue another; an index, since the vector may grow.
  for (size_t i = 0; i < task.final_callbacks.size(); ++i) {
    auto callback = std::move(task.final_callbacks[i]);
    callback();
  }
}

// The roots' edges and their starting gradients (ones for one-element outputs).
void prepare_roots(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                   std::vector<Edge>& edges, std::vector<Tensor>& grads) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "backward",
              "got ", grad_outputs.size(), " gradients for ", outputs.size(), " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    const Edge e = gradient_edge(out);
    EMBER_CHECK(e.is_valid(), "backward", "element ", i,
                " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      EMBER_CHECK(out.numel() == 1, "backward",
                  "grad can be implicitly created only for scalar outputs (got a tensor of shape ",
                  out.sizes(), "; pass a gradient)");
      g = ones_like(out);
    } else {
      EMBER_CHECK(g.sizes() == out.sizes(), "backward", "mismatch in shape: grad_output[", i,
                  "] has a shape of ", g.sizes(), " and output[", i, "] has a shape of ",
                  out.sizes());
    }
    edges.push_back(e);
    grads.push_back(std::move(g));
  }
}

}  // namespace

bool is_running_backward() { return t_current_task != nullptr; }

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(t_current_task != nullptr, "queue_callback",
              "final callbacks can only be installed during a backward pass (call it from a "
              "hook that backward runs)");
  t_current_task->final_callbacks.push_back(std::move(callback));
}

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph) {
  GraphTask task;
  task.keep_graph = retain_graph.value_or(create_graph);
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(tensors, grad_tensors, edges, grads);
  execute(task, edges, std::move(grads), create_graph);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         GradOptions options) {
  GraphTask task;
  task.keep_graph = options.retain_graph.value_or(options.create_graph);
  task.accumulate = false;
  task.captured.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Edge e = gradient_edge(inputs[i]);
    EMBER_CHECK(e.is_valid(), "grad", "One of the differentiated Tensors (input ", i,
                ") does not require grad");
    task.captures[e.function.get()].push_back({e.input_nr, i});
    task.keep_alive.push_back(e.function);
  }
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(outputs, options.grad_outputs, edges, grads);
  execute(task, edges, std::move(grads), options.create_graph);
  for (size_t i = 0; i < inputs.size(); ++i)
    EMBER_CHECK(task.captured[i].defined() || options.allow_unused, "grad",
                "One of the differentiated Tensors appears to not have been used in the graph. "
                "Set allow_unused=true if this is the desired behavior.");
  return task.captured;
}

}  // namespace ember::autograd
