// DDP's Reducer (PyTorch's c10d::Reducer): the gradient buckets, the post-accumulate-grad hooks
// that fill them, the asynchronous reduction of each bucket as soon as it is full (in bucket
// order, the same on every rank), and the end-of-backward step that waits for them and hands
// the averaged gradients back.
#pragma once

#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/nn/parallel/distributed.h"
#include "ember/tensor.h"

namespace ember::nn::parallel {

class Reducer {
 public:
  Reducer(std::vector<Tensor> parameters, std::vector<std::string> names,
          const DistributedDataParallelOptions& options);
  ~Reducer();
  Reducer(const Reducer&) = delete;
  Reducer& operator=(const Reducer&) = delete;

  /// At a synced forward: the previous iteration must have finished its reduction.
  void prepare_for_forward();
  /// After a synced forward: arms the hooks; with find_unused_parameters marks the parameters
  /// that `outputs` do not reach as ready at once.
  void prepare_for_backward(const std::vector<Tensor>& outputs);
  /// A forward without sync (no_sync, or grad mode off): the hooks stay quiet.
  void disarm() { expect_hooks_ = false; }

  void register_comm_hook(CommHook hook);
  std::vector<std::vector<size_t>> bucket_assignment() const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  struct Bucket {
    Tensor flat;                   // the bucket's gradients, one 1-D tensor
    std::vector<size_t> params;    // parameter indices
    std::vector<Tensor> views;     // flat's slice for each, in the parameter's shape
    size_t pending = 0;            // parameters not yet ready this iteration
    dist::Work work;
  };
  struct Locator {
    size_t bucket;
    size_t slot;
  };

  void build_buckets(const std::vector<size_t>& order);
  Device collective_device() const;
  void rebuild_buckets_once();
  void on_gradient_ready(size_t index);
  void mark_ready(size_t index);
  void launch_ready_buckets();
  void finalize_backward();
  void reset_iteration();
  void wait_launched();
  [[noreturn]] void fail_unused() const;
  void warn_if_nothing_unused(const std::vector<char>& used_anywhere);

  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  DistributedDataParallelOptions options_;
  int world_size_;
  int rank_;
  std::vector<Bucket> buckets_;
  std::vector<Locator> locators_;
  std::vector<HookHandle> hooks_;
  CommHook comm_hook_;
  bool comm_hook_registered_ = false;
  bool warned_nothing_unused_ = false;
  // The first reduced iteration's grad-ready order, for the one rebuild of the buckets.
  std::vector<size_t> ready_order_;
  bool buckets_rebuilt_ = false;

  // This iteration.
  bool expect_hooks_ = false;
  bool require_finalize_ = false;  // something was marked ready; finalize must run
  bool finalize_queued_ = false;
  size_t next_bucket_ = 0;         // buckets launched so far (in order)
  std::vector<bool> ready_;
  std::vector<bool> locally_used_;
};

}  // namespace ember::nn::parallel
