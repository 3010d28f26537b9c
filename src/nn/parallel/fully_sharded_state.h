// FullyShardedDataParallelImpl's state and the steps over it, out of the public header: what
// fully_sharded.cpp (wrapping, forward and backward) and fully_sharded_state_dict.cpp (the
// sharded state dicts) share. `self` is the instance whose Module the units live in.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/nn/parallel/fully_sharded.h"
#include "nn/parallel/flat_param.h"

namespace ember::nn {

struct FullyShardedDataParallelImpl::State {
  State(FullyShardedDataParallelImpl& self, FullyShardedDataParallelOptions options)
      : self(self), options_(std::move(options)) {}

  FullyShardedDataParallelImpl& self;

  void adopt_nested_instances();
  void cast_buffers_once();
  Dtype original_dtype(const std::string& buffer, const Tensor& value) const;
  void restore_buffer_dtypes(StateDict& out, const std::string& prefix) const;
  void collect_units(std::vector<fsdp_detail::FlatParamUnit*>& out) const;
  /// Every unit of this instance and the nested ones, with the prefix of its parameter names.
  void collect_named_units(std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>>& out,
                           const std::string& prefix = "") const;
  void load_own_state(const StateDict& state_dict);
  void build_units();
  void register_unit_hooks();
  void begin_forward();
  void notify(FsdpEvent event, size_t unit) const;
  void gather(size_t unit);
  void prefetch(size_t unit);
  void pre_forward(size_t unit);
  void post_forward(size_t unit, const Tensor& output);
  void pre_backward(size_t unit);
  /// The unit before / after `unit` in the first forward's order (units_.size(): none).
  size_t neighbour_in_forward(size_t unit, int direction) const;
  void on_gradient_ready(size_t unit, size_t param);
  void finish_backward();
  void reshard_all();
  void set_grad_sync(bool sync);  // this instance and the nested ones
  /// Reduces the unit's gradients, or under no_sync adds them to its unsharded sum.
  void reduce_or_accumulate(size_t unit);
  size_t unit_of_storage(const Tensor& t) const;  // units_.size(): none

  FullyShardedDataParallelOptions options_;
  ShardingStrategy strategy_;
  std::vector<std::unique_ptr<fsdp_detail::FlatParamUnit>> units_;
  std::vector<HookHandle> hooks_;
  std::vector<std::pair<std::string, std::shared_ptr<FullyShardedDataParallelImpl>>> nested_;
  bool is_root_ = true;  // false once an enclosing FSDP adopted this one
  bool finish_queued_ = false;
  bool grad_sync_ = true;  // false under no_sync()
  // From the first gradient or pre-backward to finish_backward (pre_backward_done_ is valid).
  bool in_backward_ = false;
  std::vector<size_t> forward_order_;  // the units in the first forward's order
  bool order_recorded_ = false;
  std::vector<bool> pre_backward_done_;
  FsdpObserver observer_;
  bool buffers_cast_ = false;
  std::vector<std::pair<std::string, Dtype>> buffer_dtypes_;  // buffers cast, their own dtype
};

}  // namespace ember::nn
