// key_averages() and table(): events grouped by name (and input shapes, and call sites when
// asked), and PyTorch 1.13's table (torch/autograd/profiler_util.py _build_table) column for
// column: 12-wide right-aligned columns two spaces apart, _format_time's s/ms/us with three
// decimals, _format_memory's Gb/Mb/Kb/b, shares of the summed self time with two decimals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "ember/error.h"
#include "ember/profiler.h"

namespace ember::profiler {
namespace {

// Python's str() of a list of shapes: "[[64, 64], []]".
std::string shapes_string(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) s += ", ";
    s += "[";
    for (size_t j = 0; j < shapes[i].size(); ++j) {
      if (j) s += ", ";
      s += std::to_string(shapes[i][j]);
    }
    s += "]";
  }
  return s + "]";
}

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string format_time(double ns) {
  const double us = ns / 1000.0;
  if (us >= 1e6) return printf_string("%.3fs", us / 1e6);
  if (us >= 1e3) return printf_string("%.3fms", us / 1e3);
  return printf_string("%.3fus", us);
}

std::string format_share(int64_t part, int64_t total) {
  if (total == 0) return "NaN";
  return printf_string("%.2f%%", double(part) * 100.0 / double(total));
}

std::string format_memory(int64_t bytes) {
  constexpr double kKb = 1024, kMb = 1024 * kKb, kGb = 1024 * kMb;
  const double b = double(bytes), a = std::abs(b);
  if (a >= kGb) return printf_string("%.2f Gb", b / kGb);
  if (a >= kMb) return printf_string("%.2f Mb", b / kMb);
  if (a >= kKb) return printf_string("%.2f Kb", b / kKb);
  return std::to_string(bytes) + " b";
}

using SortKey = double (*)(const EventAverage&);
const std::map<std::string, SortKey>& sort_keys() {
  static const std::map<std::string, SortKey> keys = {
      {"cpu_time", [](const EventAverage& e) -> double { return e.cpu_time_ns(); }},
      {"cuda_time", [](const EventAverage& e) -> double { return e.cuda_time_ns(); }},
      {"cpu_time_total", [](const EventAverage& e) -> double { return e.cpu_time_total_ns; }},
      {"cuda_time_total", [](const EventAverage& e) -> double { return e.cuda_time_total_ns; }},
      {"self_cpu_time_total", [](const EventAverage& e) -> double { return e.self_cpu_time_total_ns; }},
      {"self_cuda_time_total", [](const EventAverage& e) -> double { return e.self_cuda_time_total_ns; }},
      {"cpu_memory_usage", [](const EventAverage& e) -> double { return e.cpu_memory_usage; }},
      {"cuda_memory_usage", [](const EventAverage& e) -> double { return e.cuda_memory_usage; }},
      {"self_cpu_memory_usage", [](const EventAverage& e) -> double { return e.self_cpu_memory_usage; }},
      {"self_cuda_memory_usage", [](const EventAverage& e) -> double { return e.self_cuda_memory_usage; }},
      {"count", [](const EventAverage& e) -> double { return e.count; }},
  };
  return keys;
}

// One row format: every column right-aligned except those marked left, two spaces apart.
class Columns {
 public:
  void add(size_t width, bool left = false) { columns_.push_back({width, left}); }
  size_t line_length() const {
    size_t n = 0;
    for (const auto& c : columns_) n += c.width + 2;
    return n - 2;
  }
  std::string separator() const {
    std::string s;
    for (const auto& c : columns_) s += std::string(c.width, '-') + "  ";
    return s;
  }
  std::string row(const std::vector<std::string>& cells) const {
    std::string s;
    for (size_t i = 0; i < columns_.size(); ++i) {
      const std::string& text = i < cells.size() ? cells[i] : std::string();
      const size_t pad = text.size() < columns_[i].width ? columns_[i].width - text.size() : 0;
      s += columns_[i].left ? text + std::string(pad, ' ') : std::string(pad, ' ') + text;
      s += "  ";
    }
    return s;
  }

 private:
  struct Column {
    size_t width;
    bool left;
  };
  std::vector<Column> columns_;
};

}  // namespace

EventAverages profile::key_averages(const KeyAveragesOptions& options) {
  const std::vector<Event>& all = events();
  EventAverages averages;
  averages.profile_memory = options_.profile_memory;
  std::map<std::string, size_t> index;
  for (const Event& e : all) {
    const std::string shapes = options.group_by_input_shape ? shapes_string(e.input_shapes) : "";
    std::vector<std::string> stack(
        e.stack.begin(),
        e.stack.begin() + std::min<ptrdiff_t>(ptrdiff_t(e.stack.size()), options.group_by_stack_n));
    std::string key = e.name + '\x1f' + shapes;
    for (const std::string& frame : stack) key += '\x1f' + frame;
    auto [it, fresh] = index.emplace(key, averages.size());
    if (fresh) {
      EventAverage a;
      a.key = e.name;
      a.input_shapes = shapes;
      a.stack = std::move(stack);
      averages.push_back(std::move(a));
      averages.top_level.push_back(e.parent < 0);
    }
    EventAverage& a = averages[it->second];
    ++a.count;
    a.cpu_time_total_ns += e.cpu_time_total_ns;
    a.self_cpu_time_total_ns += e.self_cpu_time_total_ns;
    a.cpu_memory_usage += e.cpu_memory_usage;
    a.self_cpu_memory_usage += e.self_cpu_memory_usage;
  }
  return averages;
}

std::string EventAverages::table(const TableOptions& o) const {
  if (empty()) return "";
  std::vector<size_t> order(size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!o.sort_by.empty()) {
    auto key = sort_keys().find(o.sort_by);
    if (key == sort_keys().end()) {
      std::string known;
      for (const auto& [name, fn] : sort_keys()) known += (known.empty() ? "" : ", ") + name;
      fail("profiler", "table: unknown sort_by '", o.sort_by, "' (expected one of ", known, ")");
    }
    const SortKey f = key->second;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return f((*this)[a]) > f((*this)[b]); });
  }
  const auto& rows = *this;
  bool has_cuda_time = false, has_cuda_mem = false, has_shapes = false, has_stack = false;
  size_t name_width = 0, shapes_width = 0, src_width = 0;
  int64_t sum_self = 0, sum_self_cuda = 0;
  for (const EventAverage& e : rows) {
    has_cuda_time |= e.self_cuda_time_total_ns > 0;
    has_cuda_mem |= e.self_cuda_memory_usage > 0;
    has_shapes |= e.input_shapes.size() > 2;  // some event had an input (not "" or "[]")
    has_stack |= !e.stack.empty();
    name_width = std::max(name_width, e.key.size() + 4);
    shapes_width = std::max(shapes_width, e.input_shapes.size() + 4);
    for (const std::string& frame : e.stack) src_width = std::max(src_width, frame.size() + 4);
    sum_self += e.self_cpu_time_total_ns;
    sum_self_cuda += e.self_cuda_time_total_ns;
  }
  name_width = std::min(name_width, size_t(o.max_name_column_width));
  shapes_width = std::min(shapes_width, size_t(o.max_shapes_column_width));
  src_width = std::min(src_width, size_t(o.max_src_column_width));

  std::vector<std::string> headers = {"Name",      "Self CPU %", "Self CPU",
                                      "CPU total %", "CPU total", "CPU time avg"};
  if (has_cuda_time)
    headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
  if (profile_memory) {
    headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
    if (has_cuda_mem) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
  }
  headers.push_back("# of Calls");
  Columns columns;
  columns.add(name_width);
  for (size_t i = 1; i < headers.size(); ++i) columns.add(12);
  if (has_shapes) {
    headers.push_back("Input Shapes");
    columns.add(shapes_width);
  }
  if (has_stack) {
    headers.push_back("Source Location");
    columns.add(src_width, /*left=*/true);
  }

  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  if (!o.header.empty()) {
    line(std::string(columns.line_length(), '='));
    line(o.header);
  }
  if (o.top_level_events_only) {
    line(std::string(columns.line_length(), '='));
    line("This report only display top-level ops statistics");
  }
  line(columns.separator());
  line(columns.row(headers));
  line(columns.separator());
  auto trim_path = [&](std::string path) {
    if (path.size() > src_width) {
      path = path.substr(path.size() - src_width);
      if (path.size() > 3) path = "..." + path.substr(3);
    }
    return path;
  };
  int64_t shown = 0;
  for (size_t i : order) {
    if (shown == o.row_limit) break;
    if (o.top_level_events_only && !top_level[i]) continue;
    ++shown;
    const EventAverage& e = rows[i];
    std::string name = e.key;
    if (int64_t(name.size()) >= o.max_name_column_width - 3)
      name = name.substr(0, size_t(std::max<int64_t>(0, o.max_name_column_width - 3))) + "...";
    std::vector<std::string> cells = {name,
                                      format_share(e.self_cpu_time_total_ns, sum_self),
                                      format_time(double(e.self_cpu_time_total_ns)),
                                      format_share(e.cpu_time_total_ns, sum_self),
                                      format_time(double(e.cpu_time_total_ns)),
                                      format_time(e.cpu_time_ns())};
    if (has_cuda_time) {
      cells.insert(cells.end(), {format_time(double(e.self_cuda_time_total_ns)),
                                 format_share(e.self_cuda_time_total_ns, sum_self_cuda),
                                 format_time(double(e.cuda_time_total_ns)), format_time(e.cuda_time_ns())});
    }
    if (profile_memory) {
      cells.insert(cells.end(), {format_memory(e.cpu_memory_usage),
                                 format_memory(e.self_cpu_memory_usage)});
      if (has_cuda_mem)
        cells.insert(cells.end(), {format_memory(e.cuda_memory_usage),
                                   format_memory(e.self_cuda_memory_usage)});
    }
    cells.push_back(std::to_string(e.count));
    if (has_shapes) cells.push_back(e.input_shapes.substr(0, shapes_width));
    if (has_stack) cells.push_back(e.stack.empty() ? "" : trim_path(e.stack[0]));
    line(columns.row(cells));
    if (has_stack) {
      std::vector<std::string> blank(headers.size() - 1);
      for (size_t f = 1; f < e.stack.size() && f < 5; ++f) {
        blank.push_back(trim_path(e.stack[f]));
        line(columns.row(blank));
        blank.pop_back();
      }
      line(columns.row(std::vector<std::string>(headers.size())));
    }
  }
  line(columns.separator());
  line("Self CPU time total: " + format_time(double(sum_self)));
  if (has_cuda_time) line("Self CUDA time total: " + format_time(double(sum_self_cuda)));
  return out;
}

}  // namespace ember::profiler
