// The `.metadata` of a distributed checkpoint: PyTorch 1.13's records
// (torch/distributed/_shard/checkpoint/metadata.py) as C++ values, written as the pickle 1.13's
// loader reads and read back by an allowlist unpickler that never runs anything from the file.
// See ../shared/reference/pytorch-1.13-facts.md §1.3 for the classes and their pickled form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "ember/dtype.h"

namespace ember::dcp::detail {

/// ChunkStorageMetadata: one saved block, by its global offsets and its sizes.
struct ChunkMeta {
  std::vector<int64_t> offsets, sizes;
};

/// TensorStorageMetadata (its TensorProperties reduced to what ember keeps).
struct TensorMeta {
  Dtype dtype = kFloat32;
  bool requires_grad = false;
  std::vector<int64_t> size;
  std::vector<ChunkMeta> chunks;
};

/// BytesStorageMetadata: a non-tensor value, saved as one torch.save file.
struct BytesMeta {};

/// MetadataIndex + _StorageInfo: where an item's bytes are. A tensor chunk is named by its
/// fqn and offsets, a bytes item by its fqn alone.
struct StorageEntry {
  std::string fqn;
  std::optional<std::vector<int64_t>> offset;
  std::optional<int64_t> index;
  std::string relative_path;
  int64_t file_offset = 0, length = 0;
};

/// A key of a nested state dict: a string, or an int (an optimizer's parameter ids).
using PathPart = std::variant<std::string, int64_t>;

struct Metadata {
  std::vector<std::pair<std::string, std::variant<TensorMeta, BytesMeta>>> state_dict_metadata;
  std::vector<StorageEntry> storage_data;
  /// fqn -> its path in the nested tree (ember's planner_data, as PyTorch 2.x's flattening
  /// mappings). Empty when the checkpoint has none (1.13's planner_data is None).
  std::vector<std::pair<std::string, std::vector<PathPart>>> planner_data;

  // Lookups by key (indexed on first use: the vectors must not change after that).
  const std::variant<TensorMeta, BytesMeta>* find(const std::string& fqn) const;
  const StorageEntry* storage(const std::string& fqn,
                              const std::optional<std::vector<int64_t>>& offset) const;

 private:
  void index() const;
  mutable bool indexed_ = false;
  mutable std::unordered_map<std::string, size_t> entry_of_;
  mutable std::unordered_multimap<std::string, size_t> storage_of_;
};

/// The pickle of Metadata with exactly 1.13's globals (protocol 2, no memo for records).
std::string write_metadata(const Metadata& metadata);
/// Reads a pickle written by write_metadata or by PyTorch 1.13 (protocol 2 to 4). Only the
/// record classes, torch.Size, torch.<dtype>, torch.serialization._get_layout,
/// builtins.getattr and MEM_FORMAT_ENCODING are accepted; anything else is an ember::Error
/// naming it. `what` names the file in messages.
Metadata read_metadata(std::string_view pickle, const std::string& what);

}  // namespace ember::dcp::detail
