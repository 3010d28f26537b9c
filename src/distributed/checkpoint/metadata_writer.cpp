// Writes `.metadata` as PyTorch 1.13 pickles it, record by record: every dataclass as
// `GLOBAL cls; EMPTY_TUPLE; NEWOBJ; {field: value}; BUILD`, TensorProperties with its 5-tuple
// state, torch.Size as `torch.Size((d0, d1, ...),)` REDUCE (pytorch-1.13-facts.md §1.3).
#include <algorithm>
#include <functional>

#include "distributed/checkpoint/metadata.h"
#include "ember/error.h"
#include "serialize/pickle.h"

namespace ember::dcp::detail {
namespace {

using serialize::PickleWriter;

constexpr const char* kMetadataModule = "torch.distributed._shard.checkpoint.metadata";
constexpr const char* kFilesystemModule = "torch.distributed._shard.checkpoint.filesystem";
constexpr const char* kShardedModule = "torch.distributed._shard.sharded_tensor.metadata";

using Field = std::pair<const char*, std::function<void()>>;

class MetadataPickler {
 public:
  std::string run(const Metadata& m) {
    p_.proto();
    record(kMetadataModule, "Metadata",
           {{"state_dict_metadata", [&] { state_dict_metadata(m); }},
            {"planner_data", [&] { planner_data(m); }},
            {"storage_data", [&] { storage_data(m); }}});
    p_.stop();
    return p_.bytes();
  }

 private:
  // cls.__new__(cls), then BUILD with the __dict__.
  void record(const char* module, const char* name, const std::vector<Field>& fields) {
    p_.global(module, name);
    p_.op(serialize::kEmptyTuple);
    p_.op(serialize::kNewObj);
    p_.op(serialize::kEmptyDict);
    if (!fields.empty()) {
      p_.op(serialize::kMark);
      for (const auto& [key, value] : fields) {
        p_.string(key);
        value();
      }
      p_.op(serialize::kSetItems);
    }
    p_.op(serialize::kBuild);
  }

  void ints(const std::vector<int64_t>& v) {
    p_.op(serialize::kMark);
    for (int64_t x : v) p_.integer(x);
    p_.op(serialize::kTuple);
  }

  void size(const std::vector<int64_t>& dims) {
    p_.global("torch", "Size");
    ints(dims);
    p_.op(serialize::kTuple1);
    p_.op(serialize::kReduce);
  }

  void tensor_properties(const TensorMeta& t) {
    p_.global(kShardedModule, "TensorProperties");
    p_.op(serialize::kEmptyTuple);
    p_.op(serialize::kNewObj);
    p_.op(serialize::kMark);
    p_.global("torch", dtype_name(t.dtype));
    p_.global("torch.serialization", "_get_layout");
    p_.string("torch.strided");
    p_.op(serialize::kTuple1);
    p_.op(serialize::kReduce);
    p_.boolean(t.requires_grad);
    p_.global("builtins", "getattr");
    p_.global(kShardedModule, "MEM_FORMAT_ENCODING");
    p_.string("TORCH_CONTIGUOUS_FORMAT");
    p_.op(serialize::kTuple2);
    p_.op(serialize::kReduce);
    p_.boolean(false);  // pin_memory
    p_.op(serialize::kTuple);
    p_.op(serialize::kBuild);
  }

  void state_dict_metadata(const Metadata& m) {
    p_.op(serialize::kEmptyDict);
    if (m.state_dict_metadata.empty()) return;
    p_.op(serialize::kMark);
    for (const auto& [fqn, entry] : m.state_dict_metadata) {
      p_.string(fqn);
      if (const auto* t = std::get_if<TensorMeta>(&entry)) {
        record(kMetadataModule, "TensorStorageMetadata",
               {{"properties", [&] { tensor_properties(*t); }},
                {"size", [&] { size(t->size); }},
                {"chunks", [&] {
                   p_.op(serialize::kEmptyList);
                   if (t->chunks.empty()) return;
                   p_.op(serialize::kMark);
                   for (const ChunkMeta& c : t->chunks)
                     record(kMetadataModule, "ChunkStorageMetadata",
                            {{"offsets", [&] { size(c.offsets); }},
                             {"sizes", [&] { size(c.sizes); }}});
                   p_.op(serialize::kAppends);
                 }}});
      } else {
        record(kMetadataModule, "BytesStorageMetadata", {});
      }
    }
    p_.op(serialize::kSetItems);
  }

  void planner_data(const Metadata& m) {
    if (m.planner_data.empty()) return p_.none();
    p_.op(serialize::kEmptyDict);
    p_.op(serialize::kMark);
    for (const auto& [fqn, path] : m.planner_data) {
      p_.string(fqn);
      p_.op(serialize::kMark);
      for (const PathPart& part : path) {
        if (const auto* s = std::get_if<std::string>(&part))
          p_.string(*s);
        else
          p_.integer(std::get<int64_t>(part));
      }
      p_.op(serialize::kTuple);
    }
    p_.op(serialize::kSetItems);
  }

  void storage_data(const Metadata& m) {
    p_.op(serialize::kEmptyDict);
    if (m.storage_data.empty()) return;
    p_.op(serialize::kMark);
    for (const StorageEntry& e : m.storage_data) {
      record(kMetadataModule, "MetadataIndex",
             {{"fqn", [&] { p_.string(e.fqn); }},
              {"offset", [&] { e.offset ? size(*e.offset) : p_.none(); }},
              {"index", [&] { e.index ? p_.integer(*e.index) : p_.none(); }}});
      record(kFilesystemModule, "_StorageInfo",
             {{"relative_path", [&] { p_.string(e.relative_path); }},
              {"offset", [&] { p_.integer(e.file_offset); }},
              {"length", [&] { p_.integer(e.length); }}});
    }
    p_.op(serialize::kSetItems);
  }

  PickleWriter p_;
};

}  // namespace

std::string write_metadata(const Metadata& metadata) { return MetadataPickler().run(metadata); }

void Metadata::index() const {
  if (indexed_) return;
  for (size_t i = 0; i < state_dict_metadata.size(); ++i)
    entry_of_.emplace(state_dict_metadata[i].first, i);
  for (size_t i = 0; i < storage_data.size(); ++i) storage_of_.emplace(storage_data[i].fqn, i);
  indexed_ = true;
}

const std::variant<TensorMeta, BytesMeta>* Metadata::find(const std::string& fqn) const {
  index();
  const auto it = entry_of_.find(fqn);
  return it == entry_of_.end() ? nullptr : &state_dict_metadata[it->second].second;
}

const StorageEntry* Metadata::storage(const std::string& fqn,
                                      const std::optional<std::vector<int64_t>>& offset) const {
  index();
  for (auto [it, end] = storage_of_.equal_range(fqn); it != end; ++it)
    if (storage_data[it->second].offset == offset) return &storage_data[it->second];
  return nullptr;
}

}  // namespace ember::dcp::detail
