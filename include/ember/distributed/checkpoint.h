// Distributed checkpoints (torch.distributed.checkpoint; PyTorch 1.13's
// torch.distributed._shard.checkpoint): every rank writes its own shards to its own files, the
// coordinator writes `.metadata` last and atomically, and load() reads whatever saved chunks
// overlap each rank's part of the *current* sharding — save on 4 ranks, load on 2 or 1 or into
// an unsharded model. The directory is the one PyTorch 1.13 writes and reads: `.metadata` is the
// same pickle (the same seven record classes), and each rank's `__{rank}_0.distcp` holds its
// items as torch.save archives back to back (1.13's single_file_per_rank layout; ember also
// reads 1.13's default of a file per item).
//
//   Value state = Dict{{"model", model->state_dict()}, {"optimizer", opt.state_dict()},
//                      {"epoch", epoch}};
//   dcp::save(state, "/checkpoints/step_10000");    // all ranks
//   dcp::load(state, "/checkpoints/step_10000");    // fills state's tensors in place
//   model->load_state_dict(state["model"].to_state_dict());
//
// Nested dicts are flattened to dotted keys ("model.fc.weight", "optimizer.state.0.exp_avg");
// any other non-tensor value (a list, a number, a string) is one item, saved by the coordinator
// and read by every rank. A plain tensor is replicated: the coordinator saves it, every rank
// loads all of it. A ShardedTensor is saved by every rank that holds a block of it.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "ember/distributed/process_group.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::dcp {

/// One rank's block of a tensor sharded across ranks (ShardedTensor's local shard and its
/// metadata): `local` holds the elements [offsets, offsets + local.sizes()) of a tensor of
/// `global_sizes`. A rank that holds nothing has a local tensor with 0 elements.
struct ShardedTensor {
  Tensor local;
  std::vector<int64_t> offsets;
  std::vector<int64_t> global_sizes;
};

/// Rank `rank`'s block of `full` cut along dim 0 as FSDP's sharded state dict cuts it
/// (full.chunk(world) ; rank r starts at ceil(size(0)/world) * r; ranks past the last chunk
/// hold an empty block). `local` is a view of `full`.
ShardedTensor shard_dim0(const Tensor& full, int rank, int world);

/// What save() writes and load() fills: a tree of Values (its tensors replicated) plus sharded
/// tensors under their own dotted keys. load() writes into the tree (it is shared, not copied)
/// and into the shards' local tensors.
struct State {
  Value tree = Dict{};
  std::vector<std::pair<std::string, ShardedTensor>> sharded;
};

struct SaveOptions {
  dist::ProcessGroup group = {};  // the default group when dist is initialized; else one process
  int coordinator_rank = 0;
  bool sync = true;  // fsync every file and the directory (the .metadata always is)
  /// This process alone, even inside an initialized group (1.13's no_dist): it is the
  /// coordinator and saves everything, e.g. rank 0 writing a full checkpoint by itself.
  bool no_dist = false;
};

struct LoadOptions {
  dist::ProcessGroup group = {};
  int coordinator_rank = 0;
  bool no_dist = false;  // this process alone, as SaveOptions::no_dist
};

/// Saves on every rank of the group (all must call it). The coordinator removes an old
/// `.metadata` first and writes the new one last, after every rank reported its files: a save
/// that fails or dies anywhere leaves no `.metadata`, and load() refuses the directory by
/// message. An error on any rank is raised on every rank, naming it.
void save(const State& state, const std::string& dir, const SaveOptions& options = {});
void save(const Value& state, const std::string& dir, const SaveOptions& options = {});

/// Loads the entries of `state` (all ranks call it): tensors are copied in place from every
/// saved chunk that overlaps them, other values replaced. Keys the checkpoint has under a
/// top-level key of `state` but `state` lacks (a fresh optimizer's empty "state") are added,
/// as full tensors. A key `state` has but the checkpoint lacks, or a tensor whose global shape
/// or dtype differs from the saved one, is an ember::Error naming the key (and both shapes).
void load(State& state, const std::string& dir, const LoadOptions& options = {});
void load(Value& state, const std::string& dir, const LoadOptions& options = {});
/// The same for the Dict a program builds for save(), `Dict state{{"model", sd}}`, and for a
/// plain StateDict: loaded in place, with the keys load() adds.
void load(Dict& state, const std::string& dir, const LoadOptions& options = {});
void load(StateDict& state, const std::string& dir, const LoadOptions& options = {});

}  // namespace ember::dcp
