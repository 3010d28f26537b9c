// What save and load share: the state flattened into items (dotted keys, with their paths in
// the tree), the ranks' exchange of reports, and the file names of a checkpoint directory.
#pragma once

#include <string>
#include <vector>

#include "distributed/checkpoint/metadata.h"
#include "ember/distributed/checkpoint.h"

namespace ember::dcp::detail {

inline constexpr const char* kMetadataFile = ".metadata";

/// One entry of a flattened state. A tree leaf points at its slot in the tree (load replaces
/// non-tensor values there); a sharded entry points at the State's ShardedTensor.
struct Item {
  std::string fqn;
  std::vector<PathPart> path;
  Value* slot = nullptr;           // tree leaves
  ShardedTensor* shard = nullptr;  // sharded entries
  bool is_tensor() const { return shard || slot->is_tensor(); }
  /// An empty dict in the tree: load fills it from the checkpoint's keys below it.
  bool is_empty_dict() const { return slot && slot->is_dict() && slot->to_dict().empty(); }
};

/// Flattens state.tree (nested dicts; every other value is a leaf) and appends the sharded
/// entries; a sharded key that repeats a tree key is an ember::Error naming the op.
std::vector<Item> flatten(State& state, const char* op);

/// "model.fc.weight" from {"model", "fc", "weight"}; ints as decimals.
std::string join(const std::vector<PathPart>& path);

/// The ranks of a save or load: the group's, or one process without dist (or with no_dist,
/// where this process is the coordinator whatever `coordinator` says, as in 1.13).
class Ranks {
 public:
  Ranks(const dist::ProcessGroup& group, int coordinator, bool no_dist, const char* op);
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_coordinator() const { return rank_ == coordinator_; }
  int coordinator() const { return coordinator_; }
  /// Every rank's string, in rank order, on every rank (an all-gather).
  std::vector<std::string> all_gather(const std::string& mine) const;
  /// Raises on every rank when any rank's status is an error ("" means ok), naming each one.
  void agree(const std::string& my_error, const std::string& step) const;

 private:
  dist::ProcessGroup group_;
  bool distributed_;
  int rank_ = 0, size_ = 1, coordinator_ = 0;
  const char* op_;
};

}  // namespace ember::dcp::detail
