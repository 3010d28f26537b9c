// nn::parallel::DistributedDataParallel: torch.nn.parallel.DistributedDataParallel for CPU
// modules over an ember::dist process group.
//
//   dist::init_process_group({.backend = "gloo"});
//   auto ddp = nn::parallel::DistributedDataParallel(model);     // rank 0's weights everywhere
//   optim::AdamW opt(ddp->parameters(), {.lr = 1e-3});
//   Tensor loss = criterion(ddp(x), y);  loss.backward();         // gradients averaged by now
//   { auto g = ddp->no_sync(); criterion(ddp(x), y).backward(); } // accumulate locally
//   save(ddp->module()->state_dict(), "model.pt");                 // without "module."
//
// As PyTorch does: construction checks that every rank has the same parameters (an error names
// the first one that differs and both ranks' shapes) and broadcasts rank 0's parameters and
// buffers. Gradients are averaged in buckets (a 1 MiB first bucket, then bucket_cap_mb each,
// parameters in reverse registration order, so the first bucket fills first in backward; after
// the first reduced iteration the buckets are rebuilt once in the order the gradients became
// ready, rank 0's order on every rank); each bucket's all_reduce starts asynchronously from the
// post-accumulate-grad hook of its last parameter, overlapping the rest of backward, and the
// backward pass ends only once every bucket is reduced and copied back (or, with
// gradient_as_bucket_view, p.grad is the bucket's view).
// Differences from 1.13: 1.13 runs its first iteration as one bucket (no overlap) and with
// find_unused_parameters puts the small bucket last (and never rebuilds); ember starts with the
// layout above in both cases. A parameter left without a gradient while find_unused_parameters
// is off is PyTorch's error at the end of that backward (1.13 raises it at the next forward),
// naming the parameters.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/nn/module.h"

namespace ember::nn::parallel {

struct DistributedDataParallelOptions {
  dist::ProcessGroup process_group = {};  // the default group unless given
  /// Broadcast rank 0's buffers (BatchNorm's running statistics) at the start of each forward.
  bool broadcast_buffers = true;
  double bucket_cap_mb = 25;
  /// Find, after each forward, the parameters its outputs do not depend on, and mark them ready
  /// (an extra walk over the graph each iteration).
  bool find_unused_parameters = false;
  /// p.grad becomes a view into its bucket (no copy after the all_reduce).
  bool gradient_as_bucket_view = false;
};

/// One bucket as a communication hook sees it (PyTorch's GradBucket).
struct GradBucket {
  size_t index;                 // 0: the first to fill in backward
  Tensor buffer;                // the flat gradients (already copied in); reduce it in place
  std::vector<size_t> parameter_indices;  // positions in the DDP parameter list
  bool is_last;
};
/// Starts the reduction of a bucket and returns its Work (the default: an async all_reduce
/// with ReduceOp::AVG). DDP waits for it when backward ends.
using CommHook = std::function<dist::Work(GradBucket&)>;

/// The parameters' bucket assignment: walks `tensors` (their sizes in bytes and dtypes, in the
/// order given) and closes a bucket once it holds at least the current limit (so a bucket may
/// pass it by one tensor), then moves to the next limit, the last one repeating; tensors of
/// different dtypes never share a bucket. dist._compute_bucket_assignment_by_size.
std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(
    const std::vector<Tensor>& tensors, const std::vector<size_t>& tensor_order,
    const std::vector<size_t>& bucket_limits_bytes);

/// The module-independent part: the wrapped module (child "module"), the reducer, no_sync.
class DistributedDataParallelImpl : public Module {
 public:
  DistributedDataParallelImpl(std::shared_ptr<Module> module,
                              DistributedDataParallelOptions options);
  ~DistributedDataParallelImpl() override;

  std::string name() const override { return "DistributedDataParallel"; }

  /// Gradient accumulation: backwards of forwards run inside the guard's scope do not
  /// all-reduce; the gradients add up in p.grad and the first synced backward reduces the sum.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallelImpl& ddp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallelImpl& ddp_;
    bool previous_;
  };
  [[nodiscard]] NoSyncGuard no_sync() { return NoSyncGuard(*this); }
  bool require_backward_grad_sync() const;

  /// Replaces the default all_reduce of each bucket (once, before the first backward).
  void register_comm_hook(CommHook hook);
  /// The buckets' parameter indices (positions in the DDP parameter list), bucket 0 first.
  std::vector<std::vector<size_t>> bucket_assignment() const;
  /// The DDP parameter list's names (module's names, without the "module." prefix).
  const std::vector<std::string>& parameter_names() const;
  const dist::ProcessGroup& process_group() const;
  const DistributedDataParallelOptions& options() const;

  /// What forward does around the wrapped module's forward (the typed handle calls them).
  void pre_forward();
  void post_forward(const std::vector<Tensor>& outputs);

 protected:
  std::shared_ptr<Module> module_ptr_;

 private:
  struct State;  // the options, the reducer, the buffers, the sync flags (distributed.cpp)
  std::unique_ptr<State> state_;
};

namespace detail {
inline void collect_tensors(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
inline void collect_tensors(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class... T>
void collect_tensors(const std::tuple<T...>& ts, std::vector<Tensor>& out) {
  std::apply([&](const auto&... t) { (collect_tensors(t, out), ...); }, ts);
}
template <class A, class B>
void collect_tensors(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  collect_tensors(p.first, out);
  collect_tensors(p.second, out);
}
/// Any other result holds no tensors DDP can see (find_unused_parameters then finds none used).
template <class T>
void collect_tensors(const T&, std::vector<Tensor>&) {}
}  // namespace detail

/// DDP around a module of handle type M (a layer handle such as nn::Sequential, or a
/// std::shared_ptr to a user module): module() returns that handle.
template <class M>
class DistributedDataParallelOf : public DistributedDataParallelImpl {
 public:
  DistributedDataParallelOf(M module, DistributedDataParallelOptions options)
      : DistributedDataParallelImpl(std::shared_ptr<Module>(module), std::move(options)),
        module_(std::move(module)) {}
  const M& module() const { return module_; }

  template <class... Args>
  decltype(auto) forward(Args&&... args) {
    pre_forward();
    auto output = [&]() -> decltype(auto) {
      if constexpr (std::is_base_of_v<ModuleHolderBase, M>)
        return module_(std::forward<Args>(args)...);
      else
        return nn::detail::call_forward(*module_, std::forward<Args>(args)...);
    }();
    std::vector<Tensor> outputs;
    detail::collect_tensors(output, outputs);
    post_forward(outputs);
    return output;
  }

 private:
  M module_;
};

/// The handle: `auto ddp = DistributedDataParallel(model, {...}); ddp(x); ddp->module();`.
template <class M>
class DistributedDataParallel : public ModuleHolder<DistributedDataParallelOf<M>> {
 public:
  using ModuleHolder<DistributedDataParallelOf<M>>::ModuleHolder;
  explicit DistributedDataParallel(M module, DistributedDataParallelOptions options = {})
      : ModuleHolder<DistributedDataParallelOf<M>>(
            std::make_shared<DistributedDataParallelOf<M>>(std::move(module),
                                                           std::move(options))) {}
};

}  // namespace ember::nn::parallel
