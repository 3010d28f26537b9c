// dcp::save: every rank writes its items into its own file `__{rank}_0.distcp` (PyTorch 1.13's
// FileSystemWriter with single_file_per_rank), the ranks exchange what they wrote, and the
// coordinator writes `.metadata` last.
//
// Note [The order of a save]
// 1. The coordinator removes the directory's old `.metadata`; all ranks agree that step worked.
//    From here until step 3 the directory has no `.metadata`, so a save that dies midway leaves
//    a directory that load() refuses ("incomplete"), never old metadata pointing at new files.
// 2. Every rank writes its files (the coordinator also the replicated tensors and the non-tensor
//    values, as 1.13's planner), then all ranks exchange reports: the chunks and files, or an
//    error, which is raised on every rank.
// 3. The coordinator builds Metadata from the reports, checks that the ranks agree on each
//    sharded tensor's global shape and dtype, and writes `.metadata` atomically (temporary
//    file, fsync, rename, fsync of the directory); all ranks agree once more, so save() returns
//    only when the checkpoint is complete, and throws on every rank when it is not.
// A rank that dies makes the others' next exchange fail with the process group's error (which
// names the op, the rank and the peer) within the group's timeout.
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "distributed/checkpoint/items.h"
#include "ember/autograd.h"
#include "ember/serialize.h"
#include "serialize/atomic_file.h"
#include "serialize/torch_format.h"
#include "serialize/zip_archive.h"

namespace ember::dcp {
namespace {

constexpr const char* kSaveOp = "dcp.save";
using detail::Item;
using nlohmann::json;

// A tensor as torch.save should see it: its own compact storage (1.13's _trim), so a view
// of a bigger tensor does not write all of it.
Tensor trimmed(const Tensor& t) {
  Tensor d = t.detach();
  const bool compact =
      d.is_contiguous() && d.storage_offset() == 0 && d.storage()->nbytes() == size_t(d.nbytes());
  return compact ? d : d.clone();
}

// The rank's one data file, `__{rank}_0.distcp`: its items are complete torch.save archives
// back to back (1.13's single_file_per_rank layout), each starting on a 64-byte boundary so
// that its storages stay aligned for mapping. Each archive is written in place, straight into
// the data file; the data file is synced once and renamed into place by commit().
class RankFile {
 public:
  RankFile(const std::string& dir, int rank, bool sync)
      : name_("__" + std::to_string(rank) + "_0.distcp"), file_(dir + "/" + name_, kSaveOp, sync) {}

  struct Range {
    std::string file;
    int64_t offset, length;
  };
  Range append(const Value& value) {
    static constexpr char kZeros[64] = {};
    const uint64_t pad = (64 - end_ % 64) % 64;
    file_.write(kZeros, pad);
    serialize::ZipWriter zip(file_, end_ + pad);
    serialize::write_archive(value, zip);
    const Range r{name_, int64_t(end_ + pad), int64_t(zip.size())};
    end_ += pad + zip.size();
    return r;
  }
  /// Puts the file in place, when anything was written (a rank with nothing writes no file).
  void commit() {
    if (end_ > 0) file_.commit();
  }

 private:
  std::string name_;
  serialize::AtomicFile file_;
  uint64_t end_ = 0;
};

json write_items(std::vector<Item>& items, const std::string& dir, const detail::Ranks& ranks,
                 bool sync) {
  json report = json::array();
  RankFile file(dir, ranks.rank(), sync);
  auto write = [&](const Value& value) { return file.append(value); };
  for (Item& it : items) {
    json entry{{"fqn", it.fqn}};
    if (it.shard || it.slot->is_tensor()) {
      const Tensor& t = it.shard ? it.shard->local : it.slot->to_tensor();
      std::vector<int64_t> global(t.sizes().begin(), t.sizes().end());
      std::vector<int64_t> offsets(global.size(), 0);
      if (it.shard) {
        global = it.shard->global_sizes;
        offsets = it.shard->offsets;
      }
      entry["kind"] = "tensor";
      entry["dtype"] = int(t.dtype());
      entry["requires_grad"] = t.requires_grad();
      entry["size"] = global;
      // A replicated tensor is written once, by the coordinator; a shard by its holder.
      const bool mine = it.shard ? t.numel() > 0 : ranks.is_coordinator();
      if (mine) {
        const RankFile::Range r = write(Value(trimmed(t)));
        entry["chunk"] = {{"offsets", offsets},
                          {"sizes", std::vector<int64_t>(t.sizes().begin(), t.sizes().end())},
                          {"file", r.file},
                          {"offset", r.offset},
                          {"length", r.length}};
      }
    } else {
      entry["kind"] = "bytes";
      if (ranks.is_coordinator()) {
        const RankFile::Range r = write(*it.slot);
        entry["file"] = r.file;
        entry["offset"] = r.offset;
        entry["length"] = r.length;
      }
    }
    json path = json::array();
    for (const auto& part : it.path) {
      if (const auto* s = std::get_if<std::string>(&part))
        path.push_back(*s);
      else
        path.push_back(std::get<int64_t>(part));
    }
    entry["path"] = path;
    report.push_back(entry);
  }
  file.commit();
  return report;
}

detail::Metadata build_metadata(const std::vector<json>& reports, int coordinator) {
  detail::Metadata m;
  std::vector<std::unordered_map<std::string, const json*>> by_fqn(reports.size());
  for (size_t r = 0; r < reports.size(); ++r) {
    for (const json& e : reports[r]) by_fqn[r].emplace(e["fqn"].get<std::string>(), &e);
    EMBER_CHECK(reports[r].size() == reports[size_t(coordinator)].size(), kSaveOp, "rank ", r,
                " saves ", reports[r].size(), " entries but rank ", coordinator, " saves ",
                reports[size_t(coordinator)].size(), ": every rank must save the same keys");
  }
  // Keys in the coordinator's order; every rank flattened the same state.
  for (const json& entry : reports[size_t(coordinator)]) {
    const std::string fqn = entry["fqn"];
    std::vector<detail::PathPart> path;
    for (const json& part : entry["path"]) {
      if (part.is_string())
        path.emplace_back(part.get<std::string>());
      else
        path.emplace_back(part.get<int64_t>());
    }
    m.planner_data.push_back({fqn, path});
    if (entry["kind"] == "bytes") {
      m.state_dict_metadata.push_back({fqn, detail::BytesMeta{}});
      m.storage_data.push_back(
          {fqn, std::nullopt, std::nullopt, entry["file"], entry["offset"], entry["length"]});
      continue;
    }
    detail::TensorMeta t;
    t.dtype = Dtype(entry["dtype"].get<int>());
    t.requires_grad = entry["requires_grad"];
    t.size = entry["size"].get<std::vector<int64_t>>();
    for (size_t r = 0; r < reports.size(); ++r) {
      const auto found = by_fqn[r].find(fqn);
      const json* mine = found == by_fqn[r].end() ? nullptr : found->second;
      EMBER_CHECK(mine, kSaveOp, "rank ", r, " has no entry '", fqn, "' but rank ", coordinator,
                  " has: every rank must save the same keys");
      EMBER_CHECK((*mine)["kind"] == "tensor" && (*mine)["size"] == entry["size"] &&
                      (*mine)["dtype"] == entry["dtype"],
                  kSaveOp, "'", fqn, "': rank ", r, " saves a ", (*mine)["kind"].get<std::string>(),
                  " of shape ", (*mine)["size"].dump(), " but rank ", coordinator, " a tensor of ",
                  entry["size"].dump(), " (or the dtypes differ)");
      if (!mine->contains("chunk")) continue;
      const json& c = (*mine)["chunk"];
      const auto offsets = c["offsets"].get<std::vector<int64_t>>();
      t.chunks.push_back({offsets, c["sizes"].get<std::vector<int64_t>>()});
      m.storage_data.push_back(
          {fqn, offsets, int64_t(t.chunks.size() - 1), c["file"], c["offset"], c["length"]});
    }
    m.state_dict_metadata.push_back({fqn, std::move(t)});
  }
  return m;
}

template <class F>
std::string attempt(F&& f) {
  try {
    f();
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

void save(const State& state, const std::string& dir, const SaveOptions& options) {
  const detail::Ranks ranks(options.group, options.coordinator_rank, options.no_dist, kSaveOp);
  State view = state;  // shares the tree and the tensors; flatten needs mutable slots
  std::vector<Item> items;
  const std::string metadata_path = dir + "/" + detail::kMetadataFile;

  // A rank whose state is malformed still joins the exchange, so that all ranks fail together.
  ranks.agree(attempt([&] {
                items = detail::flatten(view, kSaveOp);
                std::filesystem::create_directories(dir);
                if (ranks.is_coordinator()) std::filesystem::remove(metadata_path);
              }),
              "preparing '" + dir + "'");

  json report;
  const std::string write_error = attempt([&] {
    NoGradGuard no_grad;
    report = write_items(items, dir, ranks, options.sync);
  });
  const auto reports = ranks.all_gather(write_error.empty() ? "ok" + report.dump() : write_error);
  std::string failed;
  for (int r = 0; r < ranks.size(); ++r)
    if (reports[size_t(r)].rfind("ok", 0) != 0)
      failed += "\n  rank " + std::to_string(r) + ": " + reports[size_t(r)];
  EMBER_CHECK(failed.empty(), kSaveOp, "rank ", ranks.rank(), " of ", ranks.size(),
              ": writing the shards of '", dir, "' failed on some ranks:", failed);

  std::string metadata_error;
  if (ranks.is_coordinator())
    metadata_error = attempt([&] {
      std::vector<json> parsed;
      for (const std::string& r : reports) parsed.push_back(json::parse(r.substr(2)));
      const std::string bytes = detail::write_metadata(build_metadata(parsed, ranks.coordinator()));
      serialize::AtomicFile file(metadata_path, kSaveOp);
      file.write(bytes.data(), bytes.size());
      file.commit();
    });
  ranks.agree(metadata_error, "writing '" + metadata_path + "'");
}

void save(const Value& state, const std::string& dir, const SaveOptions& options) {
  save(State{state, {}}, dir, options);
}

}  // namespace ember::dcp
