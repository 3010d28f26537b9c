// export_chrome_trace and export_stacks. The trace is the JSON Trace Event format in the object
// form Kineto builds of PyTorch write (../shared/reference/pytorch-1.13-facts.md §5.3):
// complete events ("ph": "X") with cat cpu_op / user_annotation, ts and dur in microseconds
// (fractional: ember's clock is in nanoseconds) since the recording started, pid the process
// and tid the OS thread; "Input Dims"/"Input type" args with record_shapes, "Call stack" with
// with_stack; allocator events as "[memory]" instant events; thread names as metadata events.
#include <unistd.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/profiler.h"

namespace ember::profiler {
namespace {

const char* category(EventKind kind) {
  return kind == EventKind::UserAnnotation ? "user_annotation" : "cpu_op";
}

double microseconds(int64_t ns) { return double(ns) / 1000.0; }

void write_file(const std::string& path, const std::string& text, const char* op) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  EMBER_CHECK(f.good(), op, "cannot open ", path, " for writing");
  f << text;
  f.flush();
  EMBER_CHECK(f.good(), op, "writing ", path, " failed");
}

}  // namespace

void profile::export_chrome_trace(const std::string& path) {
  const std::vector<Event>& all = events();
  const int pid = int(::getpid());
  nlohmann::ordered_json trace_events = nlohmann::ordered_json::array();
  trace_events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                          {"args", {{"name", "ember"}}}});
  int64_t sort_index = 0;
  for (const auto& [thread, name] : thread_names_) {
    // Unnamed threads: the process's main thread (its tid is the pid), or OpenMP/other ones.
    const std::string shown = !name.empty()          ? name
                              : thread == uint64_t(pid) ? "main thread"
                                                        : "thread " + std::to_string(thread);
    trace_events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", thread},
                            {"args", {{"name", shown}}}});
    trace_events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid},
                            {"tid", thread}, {"args", {{"sort_index", sort_index++}}}});
  }
  for (const Event& e : all) {
    nlohmann::ordered_json args = nlohmann::ordered_json::object();
    if (!e.input_shapes.empty() || !e.input_types.empty()) {
      args["Input Dims"] = e.input_shapes;
      args["Input type"] = e.input_types;
    }
    if (!e.stack.empty()) {
      std::string stack;
      for (const std::string& frame : e.stack) stack += (stack.empty() ? "" : ";") + frame;
      args["Call stack"] = stack;
    }
    trace_events.push_back({{"ph", "X"},
                            {"cat", category(e.kind)},
                            {"name", e.name},
                            {"pid", pid},
                            {"tid", e.thread},
                            {"ts", microseconds(e.start_ns)},
                            {"dur", microseconds(e.end_ns - e.start_ns)},
                            {"args", args}});
  }
  for (const MemoryEvent& m : memory_events()) {
    trace_events.push_back({{"ph", "i"},
                            {"cat", "cpu_instant_event"},
                            {"s", "t"},
                            {"name", "[memory]"},
                            {"pid", pid},
                            {"tid", m.thread},
                            {"ts", microseconds(m.time_ns)},
                            {"args",
                             {{"Device Type", 0},
                              {"Device Id", -1},
                              {"Addr", m.address},
                              {"Bytes", m.bytes},
                              {"Total Allocated", m.total_allocated},
                              {"Total Reserved", m.total_reserved}}}});
  }
  nlohmann::ordered_json trace = {{"schemaVersion", 1},
                                  {"deviceProperties", nlohmann::ordered_json::array()},
                                  {"displayTimeUnit", "ms"},
                                  {"traceEvents", std::move(trace_events)},
                                  {"traceName", path}};
  write_file(path, trace.dump() + "\n", "export_chrome_trace");
}

void profile::export_stacks(const std::string& path, const std::string& metric) {
  EMBER_CHECK(metric == "self_cpu_time_total" || metric == "self_cuda_time_total",
              "export_stacks", "metric should be self_cpu_time_total or self_cuda_time_total, "
              "got '", metric, "'");
  EMBER_CHECK(options_.with_stack, "export_stacks", "the profile was not recorded with_stack");
  std::string text;
  for (const Event& e : events()) {
    if (e.stack.empty()) continue;
    const int64_t value = metric == "self_cpu_time_total" ? e.self_cpu_time_total_ns / 1000 : 0;
    std::string line;
    for (auto it = e.stack.rbegin(); it != e.stack.rend(); ++it) line += *it + ";";
    text += line + e.name + " " + std::to_string(value) + "\n";
  }
  write_file(path, text, "export_stacks");
}

}  // namespace ember::profiler
