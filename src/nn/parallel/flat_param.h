// One FSDP unit's flat parameter (1.13's FlatParameter + FlatParamHandle): the unit's original
// parameters flattened and padded to a multiple of the world size, this rank's chunk kept as
// the FSDP parameter, the all-gather that points the original parameter handles back into the
// full flat tensor, and the reduce-scatter of their gradients into the shard's .grad.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/tensor.h"

namespace ember::nn::fsdp_detail {

class FlatParamUnit {
 public:
  /// Takes the parameters' current values (broadcast from rank 0 first when
  /// `sync_module_states`); afterwards the parameters hold no data until unshard().
  /// `compute_dtype`: what the gathered parameters are cast to (their own dtype: no cast);
  /// `reduce_dtype`: what gradients are reduced in.
  FlatParamUnit(std::string module_path, std::vector<Tensor> params,
                std::vector<std::string> names, dist::ProcessGroup group, bool sharded,
                bool sync_module_states, std::optional<Dtype> compute_dtype,
                std::optional<Dtype> reduce_dtype);

  const std::string& module_path() const { return module_path_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<Tensor>& params() const { return params_; }
  const std::vector<int64_t>& shape(size_t param) const { return shapes_[param]; }
  /// The FSDP parameter: this rank's chunk (the whole flat parameter under NO_SHARD).
  const Tensor& shard() const { return shard_; }
  int64_t numel() const { return numel_; }
  int64_t padded_numel() const { return shard_numel_ * (sharded_ ? world_ : 1); }
  int64_t shard_numel() const { return shard_numel_; }
  /// false under NO_SHARD: shard() is the whole flat parameter on every rank.
  bool is_sharded() const { return sharded_; }

  /// All-gathers the flat parameter (if it is not already) and points the parameters into it;
  /// a prefetch in flight is waited for instead. Says whether it issued an all-gather itself.
  bool unshard();
  /// Starts the all-gather asynchronously (1.13's forward and backward prefetch), so that it
  /// runs while other units compute; unshard() waits for it. Says whether it issued one (not
  /// when gathered or in flight already, nor under NO_SHARD, which has nothing to gather).
  bool prefetch();
  /// Frees the gathered flat parameter (after waiting for a prefetch in flight, which writes
  /// into it); the parameters hold no data. No-op under NO_SHARD.
  void reshard();
  bool is_unsharded() const { return full_.defined(); }
  bool is_prefetching() const { return gather_in_flight_; }
  /// The gathered flat parameter (undefined while resharded).
  const Tensor& full() const { return full_; }

  Dtype compute_dtype() const { return compute_dtype_; }
  Dtype reduce_dtype() const { return reduce_dtype_; }
  /// The parameters' full values in the shard's (full) precision, in their shapes: an
  /// all-gather of the shards (no gather under NO_SHARD). For state dicts.
  std::vector<Tensor> gather_values() const;
  /// The same for any tensor laid out like the shard (an optimizer state of it).
  std::vector<Tensor> gather_like_shard(const Tensor& local) const;
  /// This rank's chunk of full values given in the parameters' shapes (flat order), padded.
  Tensor shard_of(const std::vector<Tensor>& values) const;

  /// Gradient readiness in this backward; reduce_gradients() once all are ready.
  bool mark_ready(size_t param);
  bool any_ready() const { return ready_count_ > 0; }
  /// Flattens the parameters' gradients (zeros where none), reduces them (AVG) into this rank's
  /// chunk and adds it to shard().grad; clears the parameters' .grad.
  void reduce_gradients();
  /// The same in two halves: launch_reduce() starts the collective (asynchronously) and clears
  /// the parameters' .grad; finish_reduce() waits for it and adds the result to shard().grad
  /// (nothing when none is running).
  void launch_reduce();
  void finish_reduce();
  /// no_sync: adds the parameters' gradients (zeros where none) to an unsharded flat gradient
  /// kept for the next launch_reduce(), which reduces it with that step's; clears the
  /// parameters' .grad and the readiness.
  void accumulate_unsharded();

  /// Copies new full values (in the parameters' shapes, flat order) into this rank's shard.
  void load_full(const std::vector<Tensor>& values);

 private:
  void point_params_into(const Tensor& flat);
  void drop_prefetch();  // waits for a prefetch in flight and discards it
  /// The parameters' gradients flattened (zeros where none, the padding too) in `dtype`; their
  /// .grad cleared, the readiness reset.
  Tensor take_flat_gradients(Dtype dtype);
  std::string unit_text() const;  // "unit '2'", "the root unit": for messages

  std::string module_path_;
  std::vector<Tensor> params_;
  std::vector<std::string> names_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<int64_t> offsets_;  // of each parameter in the flat parameter
  dist::ProcessGroup group_;
  Device device_;  // the parameters', where the group's communicator takes them
  bool sharded_;
  int world_;
  int rank_;
  int64_t numel_ = 0;
  int64_t shard_numel_ = 0;
  Dtype compute_dtype_;
  Dtype reduce_dtype_;
  bool separate_full_;  // the gathered parameters are not the shard itself (sharded, or cast)
  Tensor shard_;
  Tensor full_;
  // A prefetch: the all-gather's output and input while it runs.
  dist::Work gather_work_;
  Tensor gathering_, gather_input_;
  bool gather_in_flight_ = false;
  dist::Work reduce_work_;
  Tensor reduced_;  // the collective's output while it runs
  Tensor accumulated_;  // no_sync's unsharded gradient sum, in the shard's dtype
  bool reduce_in_flight_ = false;
  std::vector<bool> ready_;
  size_t ready_count_ = 0;
};

}  // namespace ember::nn::fsdp_detail
