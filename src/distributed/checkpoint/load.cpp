// dcp::load: each rank reads `.metadata`, then for every tensor of its state the saved chunks
// that overlap the part it holds (PyTorch 1.13's resharding rule, pytorch-1.13-facts.md §1.6:
// per dimension the overlap is [max(saved, mine), min(saved end, my end)), the chunk is loaded
// whole, narrowed, and copied into the narrowed target), and every non-tensor value.
// Unlike 1.13, a global shape or dtype that differs from the saved one is an error. A key inside
// a dict that 1.13 saved whole (its planner pickles a nested dict as one item) is read from there.
#include <filesystem>
#include <fstream>
#include <optional>
#include <unordered_map>

#include "distributed/checkpoint/items.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/serialize.h"
#include "serialize/torch_format.h"

namespace ember::dcp {
namespace {

constexpr const char* kLoadOp = "dcp.load";
using detail::Item;

std::string shape_text(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The target's global shape and dtype must be the saved ones.
void check_like_saved(const std::string& fqn, const std::vector<int64_t>& saved_size,
                      Dtype saved_dtype, const std::vector<int64_t>& global, Dtype dtype) {
  EMBER_CHECK(saved_size == global, kLoadOp, "'", fqn, "': the checkpoint has shape ",
              shape_text(saved_size), " but the target has shape ", shape_text(global));
  EMBER_CHECK(saved_dtype == dtype, kLoadOp, "'", fqn, "': the checkpoint has dtype ",
              dtype_name(saved_dtype), " but the target has dtype ", dtype_name(dtype));
}

// A path part as the dict key it names.
Value key_value(const detail::PathPart& part) {
  return std::holds_alternative<std::string>(part) ? Value(std::get<std::string>(part))
                                                   : Value(std::get<int64_t>(part));
}

class Loader {
 public:
  Loader(std::string dir, detail::Metadata metadata)
      : dir_(std::move(dir)), m_(std::move(metadata)) {}

  // Copies every saved chunk overlapping [offsets, offsets + dest.sizes()) into dest.
  void fill(const std::string& fqn, Tensor dest, const std::vector<int64_t>& offsets,
            const std::vector<int64_t>& global, Dtype dtype) {
    const auto* entry = m_.find(fqn);
    EMBER_CHECK(entry, kLoadOp, "'", fqn, "' is not in the checkpoint at '", dir_, "'");
    const auto* t = std::get_if<detail::TensorMeta>(entry);
    EMBER_CHECK(t, kLoadOp, "'", fqn,
                "' was saved as a non-tensor value, but the target is a tensor");
    check_like_saved(fqn, t->size, t->dtype, global, dtype);
    int64_t covered = 0;
    for (const detail::ChunkMeta& c : t->chunks) {
      std::vector<int64_t> from(global.size()), to(global.size()), length(global.size());
      bool overlaps = true;
      for (size_t d = 0; d < global.size() && overlaps; ++d) {
        const int64_t lo = std::max(c.offsets[d], offsets[d]);
        const int64_t hi = std::min(c.offsets[d] + c.sizes[d], offsets[d] + dest.size(int64_t(d)));
        length[d] = hi - lo;
        overlaps = length[d] > 0;
        from[d] = lo - c.offsets[d];
        to[d] = lo - offsets[d];
      }
      if (!overlaps) continue;
      Tensor saved = read_chunk(fqn, c);
      Tensor src = saved, dst = dest;
      int64_t n = 1;
      for (size_t d = 0; d < global.size(); ++d) {
        src = src.narrow(int64_t(d), from[d], length[d]);
        dst = dst.narrow(int64_t(d), to[d], length[d]);
        n *= length[d];
      }
      dst.copy_(src);
      covered += n;
    }
    EMBER_CHECK(covered >= dest.numel(), kLoadOp, "'", fqn, "': the saved chunks cover ", covered,
                " of the ", dest.numel(), " elements this rank needs");
  }

  /// A whole saved tensor (for a key the target lacks).
  Tensor read_full(const std::string& fqn) {
    const auto& t = std::get<detail::TensorMeta>(*m_.find(fqn));
    Tensor full = zeros(t.size, {.dtype = t.dtype});
    fill(fqn, full, std::vector<int64_t>(t.size.size(), 0), t.size, t.dtype);
    return full;
  }

  Value read_value(const std::string& fqn) {
    const auto* entry = m_.find(fqn);
    EMBER_CHECK(entry, kLoadOp, "'", fqn, "' is not in the checkpoint at '", dir_, "'");
    if (std::holds_alternative<detail::TensorMeta>(*entry)) return read_full(fqn);
    const detail::StorageEntry* s = m_.storage(fqn, std::nullopt);
    EMBER_CHECK(s, kLoadOp, "'", fqn, "' has no storage entry in '", dir_, "/.metadata'");
    return read(*s);
  }

  /// When `path` lies inside a value saved whole (PyTorch 1.13 saves {"optim": {...}} as the
  /// one item "optim"), its part of that value; nullopt when no ancestor key was saved.
  std::optional<Value> from_saved_ancestor(const std::string& fqn,
                                           const std::vector<detail::PathPart>& path) {
    for (size_t n = 1; n < path.size(); ++n) {
      const std::string name = detail::join({path.begin(), path.begin() + ptrdiff_t(n)});
      const auto* entry = m_.find(name);
      if (!entry || !std::holds_alternative<detail::BytesMeta>(*entry)) continue;
      auto whole = whole_.find(name);  // read once for all the keys inside it
      if (whole == whole_.end()) whole = whole_.emplace(name, read_value(name)).first;
      const Value* v = &whole->second;
      for (size_t i = n; i < path.size(); ++i) {
        const Value key = key_value(path[i]);
        EMBER_CHECK(v->is_dict() && v->to_dict().contains(key), kLoadOp, "'", fqn,
                    "' is not in the checkpoint at '", dir_, "': '", name,
                    "' was saved as one value, which has no '", fqn.substr(name.size() + 1), "'");
        v = &v->to_dict().at(key);
      }
      return *v;
    }
    return std::nullopt;
  }

  const detail::Metadata& metadata() const { return m_; }

 private:
  Tensor read_chunk(const std::string& fqn, const detail::ChunkMeta& c) {
    const detail::StorageEntry* s = m_.storage(fqn, c.offsets);
    EMBER_CHECK(s, kLoadOp, "'", fqn, "': no storage entry for its chunk at ",
                shape_text(c.offsets));
    Value v = read(*s);
    EMBER_CHECK(v.is_tensor(), kLoadOp, "'", fqn, "': ", s->relative_path, " holds a ",
                v.kind_name(), ", not a tensor");
    const Tensor& t = v.to_tensor();
    EMBER_CHECK(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()) == c.sizes, kLoadOp, "'",
                fqn, "': the chunk in ", s->relative_path, " has shape ", t.sizes(),
                " but the metadata says ", shape_text(c.sizes));
    return t;
  }

  // One torch.save archive: a whole file, or a byte range of one (a file per rank).
  Value read(const detail::StorageEntry& s) {
    const std::string& name = s.relative_path;
    EMBER_CHECK(!name.empty() && name.find('/') == std::string::npos && name != "." && name != "..",
                kLoadOp, "storage file '", name, "' in '", dir_,
                "/.metadata' is not a file name inside the checkpoint directory");
    const std::string path = dir_ + "/" + name;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    EMBER_CHECK(!ec, kLoadOp, "'", path, "' is missing (", ec.message(), ")");
    EMBER_CHECK(uint64_t(s.file_offset) + uint64_t(s.length) <= size, kLoadOp, "'", path, "' has ",
                size, " bytes but the metadata needs bytes ", s.file_offset, "..",
                s.file_offset + s.length);
    // Mapped, not copied: a tensor then views the file (tensors are copied into the targets).
    const ember::LoadOptions options{.map_location = kCPU, .weights_only = true, .mmap = true};
    return serialize::load_archive(path, uint64_t(s.file_offset), uint64_t(s.length), options);
  }

  std::string dir_;
  detail::Metadata m_;
  std::unordered_map<std::string, Value> whole_;  // values read by from_saved_ancestor
};

detail::Metadata read_metadata_file(const std::string& dir) {
  EMBER_CHECK(std::filesystem::is_directory(dir), kLoadOp, "no checkpoint directory '", dir, "'");
  const std::string path = dir + "/" + detail::kMetadataFile;
  EMBER_CHECK(std::filesystem::exists(path), kLoadOp, "the checkpoint in '", dir,
              "' is incomplete: it has no .metadata, which a save writes last (did the save "
              "fail or a rank die?)");
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return detail::read_metadata(bytes, path);
}

// Whether `path` starts with `prefix`.
bool under(const std::vector<detail::PathPart>& path, const std::vector<detail::PathPart>& prefix) {
  return path.size() > prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

// Puts `value` at `path` below `dict`, making the dicts on the way.
void insert_at(Dict& dict, const std::vector<detail::PathPart>& path, size_t from, Value value) {
  auto key = [&](size_t i) { return key_value(path[i]); };
  Dict* d = &dict;
  for (size_t i = from; i + 1 < path.size(); ++i) {
    if (!d->contains(key(i)) || !d->at(key(i)).is_dict()) d->insert(key(i), Dict{});
    d = &d->at(key(i)).to_dict();
  }
  d->insert(key(path.size() - 1), std::move(value));
}

}  // namespace

void load(State& state, const std::string& dir, const LoadOptions& options) {
  const detail::Ranks ranks(options.group, options.coordinator_rank, options.no_dist, kLoadOp);
  std::string error;
  std::exception_ptr failure;
  try {
    std::vector<Item> items = detail::flatten(state, kLoadOp);
    Loader loader(dir, read_metadata_file(dir));
    NoGradGuard no_grad;
    for (Item& it : items) {
      std::optional<Value> inside;
      if (!it.shard && !loader.metadata().find(it.fqn))
        inside = loader.from_saved_ancestor(it.fqn, it.path);
      if (it.shard) {
        const ShardedTensor& s = *it.shard;
        loader.fill(it.fqn, s.local, s.offsets, s.global_sizes, s.local.dtype());
      } else if (inside && it.slot->is_tensor()) {
        Tensor t = it.slot->to_tensor();
        EMBER_CHECK(inside->is_tensor(), kLoadOp, "'", it.fqn, "' was saved as a ",
                    inside->kind_name(), ", but the target is a tensor");
        const Tensor& saved = inside->to_tensor();
        check_like_saved(it.fqn, {saved.sizes().begin(), saved.sizes().end()}, saved.dtype(),
                         {t.sizes().begin(), t.sizes().end()}, t.dtype());
        t.copy_(saved);
      } else if (inside) {
        *it.slot = std::move(*inside);
      } else if (it.slot->is_tensor()) {
        const Tensor& t = it.slot->to_tensor();
        const std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
        loader.fill(it.fqn, t, std::vector<int64_t>(sizes.size(), 0), sizes, t.dtype());
      } else if (it.is_empty_dict() && !loader.metadata().find(it.fqn)) {
        // A fresh optimizer's empty "state": filled from the saved keys below it.
        size_t found = 0;
        for (const auto& [fqn, path] : loader.metadata().planner_data)
          if (under(path, it.path)) {
            insert_at(it.slot->to_dict(), path, it.path.size(), loader.read_value(fqn));
            ++found;
          }
        EMBER_CHECK(found > 0, kLoadOp, "'", it.fqn, "' is not in the checkpoint at '", dir, "'");
      } else {
        *it.slot = loader.read_value(it.fqn);
      }
    }
  } catch (const std::exception& e) {
    error = e.what();
    failure = std::current_exception();
  }
  // Every rank fails when one does (PyTorch's CheckpointException), each naming the ranks.
  if (ranks.size() == 1 && failure) std::rethrow_exception(failure);
  ranks.agree(error, "loading '" + dir + "'");
}

void load(Value& state, const std::string& dir, const LoadOptions& options) {
  State s{state, {}};
  load(s, dir, options);
}

void load(Dict& state, const std::string& dir, const LoadOptions& options) {
  // Moved into a Value for the load and back, also when it throws: the caller's dict is never
  // left empty.
  Value tree(std::move(state));
  struct MoveBack {
    Dict& to;
    Value& from;
    ~MoveBack() { to = std::move(from.to_dict()); }
  } move_back{state, tree};
  load(tree, dir, options);
}

void load(StateDict& state, const std::string& dir, const LoadOptions& options) {
  Value tree(state);  // a Dict of the same tensors, which load() fills in place
  load(tree, dir, options);
  state = tree.to_state_dict();
}

}  // namespace ember::dcp
