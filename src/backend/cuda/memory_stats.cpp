// The caching allocator's statistics as PyTorch presents them: torch.cuda.memory_stats()'s flat
// dictionary ("allocated_bytes.all.current", ...) and torch.cuda.memory_summary()'s 75-column
// table (torch/cuda/memory.py), so scripts and eyes trained on PyTorch's output read ember's.
#include <cstdio>
#include <string>

#include "backend/cuda/caching_allocator.h"

namespace ember::cuda {
namespace {

// The per-pool statistics in memory_summary's row order, with their dictionary names.
struct PooledStat {
  const char* key;
  StatArray DeviceStats::*member;
  const char* title;  // memory_summary's row title
  bool bytes;         // sizes (B/KiB/...) rather than counts
};
constexpr PooledStat kPooledStats[] = {
    {"allocated_bytes", &DeviceStats::allocated_bytes, "Allocated memory", true},
    {"active_bytes", &DeviceStats::active_bytes, "Active memory", true},
    {"requested_bytes", &DeviceStats::requested_bytes, "Requested memory", true},
    {"reserved_bytes", &DeviceStats::reserved_bytes, "GPU reserved memory", true},
    {"inactive_split_bytes", &DeviceStats::inactive_split_bytes, "Non-releasable memory", true},
    {"allocation", &DeviceStats::allocation, "Allocations", false},
    {"active", &DeviceStats::active, "Active allocs", false},
    {"segment", &DeviceStats::segment, "GPU reserved segments", false},
    {"inactive_split", &DeviceStats::inactive_split, "Non-releasable allocs", false},
};
constexpr const char* kPoolKeys[kStatPools] = {"all", "small_pool", "large_pool"};

void add_stat(std::map<std::string, int64_t>& out, const std::string& prefix, const Stat& s) {
  out[prefix + ".current"] = s.current;
  out[prefix + ".peak"] = s.peak;
  out[prefix + ".allocated"] = s.allocated;
  out[prefix + ".freed"] = s.freed;
}

// memory.py's _format_size: the unit is chosen by the row's first ("all") value, so a pool's
// figures share their total's unit; integer division, 6 digits, a 3-character unit.
std::string format_cell(int64_t value, int64_t reference, bool bytes) {
  static constexpr const char* kSizeUnits[] = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
  static constexpr const char* kCountUnits[] = {" ", "K", "M"};
  const double threshold = bytes ? 768.0 * 1024 : 750.0 * 1000;
  const int64_t step = bytes ? 1024 : 1000;
  const int units = bytes ? 6 : 3;
  double ref = double(reference);
  int unit = 0;
  while (unit + 1 < units && ref >= threshold) {
    ++unit;
    value /= step;
    ref /= double(step);
  }
  char cell[32];
  if (bytes) {
    std::snprintf(cell, sizeof cell, "%6lld %s", static_cast<long long>(value), kSizeUnits[unit]);
  } else {
    std::snprintf(cell, sizeof cell, "%7lld %s ", static_cast<long long>(value), kCountUnits[unit]);
  }
  return cell;
}

std::string row(const char* title, const Stat& s, const Stat& reference, bool bytes) {
  char head[32];
  std::snprintf(head, sizeof head, " %-21s | ", title);
  return std::string(head) + format_cell(s.current, reference.current, bytes) + " | " +
         format_cell(s.peak, reference.peak, bytes) + " | " +
         format_cell(s.allocated, reference.allocated, bytes) + " | " +
         format_cell(s.freed, reference.freed, bytes) + " ";
}

}  // namespace

std::map<std::string, int64_t> memory_stats_dict(const DeviceStats& stats) {
  std::map<std::string, int64_t> out;
  for (const PooledStat& p : kPooledStats)
    for (size_t pool = 0; pool < kStatPools; ++pool)
      add_stat(out, std::string(p.key) + "." + kPoolKeys[pool], (stats.*p.member)[pool]);
  add_stat(out, "oversize_allocations", stats.oversize_allocations);
  add_stat(out, "oversize_segments", stats.oversize_segments);
  out["num_alloc_retries"] = stats.num_alloc_retries;
  out["num_ooms"] = stats.num_ooms;
  out["num_sync_all_streams"] = stats.num_sync_all_streams;
  out["num_device_alloc"] = stats.num_device_alloc;
  out["num_device_free"] = stats.num_device_free;
  out["max_split_size"] = stats.max_split_size;
  return out;
}

std::string memory_summary_table(const DeviceStats& stats, int device, bool abbreviated) {
  const std::string rule(75, '='), thin(75, '-');
  std::vector<std::string> lines;
  char buf[128];
  lines.push_back(rule);
  std::snprintf(buf, sizeof buf, " %18s ember CUDA memory summary, device ID %-17d ", "", device);
  lines.push_back(buf);
  lines.push_back(thin);
  std::snprintf(buf, sizeof buf, "  %9s CUDA OOMs: %-12lld | %6s cudaMalloc retries: %-8lld  ", "",
                static_cast<long long>(stats.num_ooms), "",
                static_cast<long long>(stats.num_alloc_retries));
  lines.push_back(buf);
  lines.push_back(rule);
  lines.emplace_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");
  for (const PooledStat& p : kPooledStats) {
    lines.push_back(thin);
    const StatArray& a = stats.*p.member;
    lines.push_back(row(p.title, a[kAllPools], a[kAllPools], p.bytes));
    if (abbreviated) continue;
    lines.push_back(row("      from large pool", a[kLargePool], a[kAllPools], p.bytes));
    lines.push_back(row("      from small pool", a[kSmallPool], a[kAllPools], p.bytes));
  }
  const std::pair<const char*, const Stat*> oversize[] = {
      {"Oversize allocations", &stats.oversize_allocations},
      {"Oversize GPU segments", &stats.oversize_segments}};
  for (const auto& [title, s] : oversize) {
    lines.push_back(thin);
    lines.push_back(row(title, *s, *s, false));
  }
  lines.push_back(rule);
  std::string out;
  for (const std::string& line : lines) out += "|" + line + "|\n";
  return out;
}

}  // namespace ember::cuda
