// Flattening a checkpoint state into items, the ranks' exchange, and shard_dim0.
#include "distributed/checkpoint/items.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "ember/creation.h"
#include "ember/error.h"

namespace ember::dcp {

ShardedTensor shard_dim0(const Tensor& full, int rank, int world) {
  EMBER_CHECK(full.defined() && full.dim() >= 1, "dcp.shard_dim0",
              "expected a tensor of at least one dimension");
  EMBER_CHECK(world >= 1 && rank >= 0 && rank < world, "dcp.shard_dim0", "rank ", rank,
              " is not in a world of ", world);
  const int64_t rows = full.size(0);
  const int64_t per_rank = (rows + world - 1) / world;  // torch.chunk's chunk size
  const int64_t start = std::min(rows, per_rank * rank);
  const int64_t length = std::min(rows - start, per_rank);
  std::vector<int64_t> offsets(size_t(full.dim()), 0);
  offsets[0] = start;
  return {full.narrow(0, start, length), offsets,
          std::vector<int64_t>(full.sizes().begin(), full.sizes().end())};
}

namespace detail {

std::string join(const std::vector<PathPart>& path) {
  std::string out;
  for (const PathPart& part : path) {
    if (!out.empty()) out += '.';
    if (const auto* s = std::get_if<std::string>(&part))
      out += *s;
    else
      out += std::to_string(std::get<int64_t>(part));
  }
  return out;
}

namespace {
// A sharded key's path: its dotted parts, all-digit ones as ints (an optimizer's parameter
// ids), so that a load into a tree finds it under the tree's dicts.
std::vector<PathPart> split(const std::string& fqn) {
  std::vector<PathPart> path;
  size_t start = 0;
  while (true) {
    const size_t dot = fqn.find('.', start);
    std::string part = fqn.substr(start, dot == std::string::npos ? dot : dot - start);
    const bool digits =
        !part.empty() && part.size() < 18 &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits)
      path.emplace_back(int64_t(std::stoll(part)));
    else
      path.emplace_back(std::move(part));
    if (dot == std::string::npos) return path;
    start = dot + 1;
  }
}

void flatten_into(Value& v, std::vector<PathPart>& path, std::vector<Item>& out, const char* op) {
  if (v.is_dict() && !v.to_dict().empty()) {
    for (auto& [key, child] : v.to_dict()) {
      if (key.is_string())
        path.emplace_back(key.to_string());
      else if (key.is_int())
        path.emplace_back(key.to_int());
      else
        fail(op, "state dict key of kind ", key.kind_name(), " under '", join(path),
             "': only string and int keys can name checkpoint items");
      flatten_into(child, path, out, op);
      path.pop_back();
    }
    return;
  }
  EMBER_CHECK(!path.empty(), op, "the state must be a dict, got ", v.kind_name());
  out.push_back({join(path), path, &v, nullptr});
}
}  // namespace

std::vector<Item> flatten(State& state, const char* op) {
  EMBER_CHECK(state.tree.is_dict(), op, "the state must be a dict, got ", state.tree.kind_name());
  std::vector<Item> items;
  std::vector<PathPart> path;
  if (!state.tree.to_dict().empty()) flatten_into(state.tree, path, items, op);
  std::set<std::string> seen;
  for (const Item& it : items)
    EMBER_CHECK(seen.insert(it.fqn).second, op, "two entries of the state flatten to '", it.fqn,
                "' (a key that contains '.'?)");
  for (auto& [fqn, shard] : state.sharded) {
    EMBER_CHECK(seen.insert(fqn).second, op, "sharded tensor '", fqn, "' repeats a key");
    EMBER_CHECK(shard.local.defined() && shard.local.dim() == int64_t(shard.global_sizes.size()) &&
                    shard.offsets.size() == shard.global_sizes.size(),
                op, "sharded tensor '", fqn, "': its local tensor, offsets and global sizes ",
                "must have the same number of dimensions");
    for (size_t d = 0; d < shard.offsets.size(); ++d)
      EMBER_CHECK(shard.offsets[d] >= 0 &&
                      shard.offsets[d] + shard.local.size(int64_t(d)) <= shard.global_sizes[d],
                  op, "sharded tensor '", fqn, "': the local block ", shard.local.sizes(),
                  " at offset ", shard.offsets[d], " of dim ", d, " leaves the global shape");
    items.push_back({fqn, split(fqn), nullptr, &shard});
  }
  return items;
}

Ranks::Ranks(const dist::ProcessGroup& group, int coordinator, bool no_dist, const char* op)
    : group_(group),
      distributed_(!no_dist && (group.impl() != nullptr || dist::is_initialized())),
      op_(op) {
  if (no_dist) coordinator = 0;
  if (distributed_) {
    EMBER_CHECK(group_.rank() >= 0, op, "this process is not a member of the group");
    rank_ = group_.rank();
    size_ = group_.size();
  }
  coordinator_ = coordinator;
  EMBER_CHECK(coordinator >= 0 && coordinator < size_, op, "coordinator rank ", coordinator,
              " is not in a group of ", size_);
}

std::vector<std::string> Ranks::all_gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
  const dist::CollectiveOptions options{.group = group_};
  Tensor length = tensor({int64_t(mine.size())});
  std::vector<Tensor> lengths(static_cast<size_t>(size_));
  for (Tensor& t : lengths) t = zeros({1}, {.dtype = kInt64});
  dist::all_gather(lengths, length, options);
  int64_t longest = 1;
  for (const Tensor& t : lengths) longest = std::max(longest, t.item<int64_t>());
  Tensor buffer = zeros({longest}, {.dtype = kUInt8});
  std::memcpy(buffer.data_ptr<uint8_t>(), mine.data(), mine.size());
  std::vector<Tensor> buffers(static_cast<size_t>(size_));
  for (Tensor& t : buffers) t = zeros({longest}, {.dtype = kUInt8});
  dist::all_gather(buffers, buffer, options);
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r)
    out.emplace_back(reinterpret_cast<const char*>(buffers[size_t(r)].data_ptr<uint8_t>()),
                     size_t(lengths[size_t(r)].item<int64_t>()));
  return out;
}

void Ranks::agree(const std::string& my_error, const std::string& step) const {
  const auto errors = all_gather(my_error);
  std::string message;
  for (int r = 0; r < size_; ++r)
    if (!errors[size_t(r)].empty())
      message += "\n  rank " + std::to_string(r) + ": " + errors[size_t(r)];
  EMBER_CHECK(message.empty(), op_, "rank ", rank_, " of ", size_, ": ", step,
              " failed on some ranks:", message);
}

}  // namespace detail
}  // namespace ember::dcp
