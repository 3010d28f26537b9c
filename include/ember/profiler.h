// The profiler, as torch.profiler: a profile records every op passing the op-entry scope,
// autograd nodes, record_function ranges and (with profile_memory) allocator events, on every
// thread, into per-thread buffers; key_averages().table() prints PyTorch's table and
// export_chrome_trace() writes the Trace Event JSON that chrome://tracing and Perfetto open.
//
//   profiler::profile prof({.activities = {kCPU}, .record_shapes = true});
//   { profiler::record_function r("training_step"); ... }
//   std::cout << prof.key_averages().table({.sort_by = "cpu_time_total", .row_limit = 20});
//   prof.export_chrome_trace("trace.json");
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ember/device.h"

namespace ember::profiler {

/// What a schedule tells the profiler to do during one step (PyTorch's ProfilerAction).
enum class ProfilerAction { NONE, WARMUP, RECORD, RECORD_AND_SAVE };
using Schedule = std::function<ProfilerAction(int64_t step)>;

struct ScheduleOptions {
  int64_t wait = 0;
  int64_t warmup = 0;
  int64_t active = 1;
  int64_t repeat = 0;  // cycles; 0: unlimited
  int64_t skip_first = 0;
};
/// torch.profiler.schedule: after skip_first steps, cycles of wait, warmup and active steps; the
/// last active step of a cycle is RECORD_AND_SAVE (on_trace_ready runs after it).
Schedule schedule(ScheduleOptions options);

/// Where an event comes from; the Chrome trace's "cat".
enum class EventKind : uint8_t {
  Op,              // an op through the op-entry scope ("cpu_op")
  UserAnnotation,  // record_function, ProfilerStep#N, optimizer and DataLoader ranges
  Autograd,        // a backward node ("autograd::engine::evaluate_function: X" and "X")
};

/// One finished range (PyTorch's FunctionEvent). Times are nanoseconds since the profile
/// started; self time is the total minus the totals of the direct children, exactly.
struct Event {
  std::string name;
  EventKind kind = EventKind::Op;
  uint64_t thread = 0;  // the OS thread id
  int64_t start_ns = 0, end_ns = 0;
  int64_t cpu_time_total_ns = 0, self_cpu_time_total_ns = 0;
  int64_t cpu_memory_usage = 0, self_cpu_memory_usage = 0;  // bytes allocated minus freed
  std::vector<std::vector<int64_t>> input_shapes;           // record_shapes; [] per non-tensor
  std::vector<std::string> input_types;                     // dtype names ("float32")
  std::vector<std::string> stack;  // with_stack: innermost call site first
  int64_t parent = -1;             // index in events() of the enclosing range, same thread
  std::vector<int64_t> children;
};

/// One allocation (bytes > 0) or free (bytes < 0) of the CPU allocator, with its running
/// totals after the event (allocated: held by live storages; reserved: allocated + cached).
struct MemoryEvent {
  int64_t time_ns = 0;
  uint64_t thread = 0;
  uintptr_t address = 0;
  int64_t bytes = 0;
  int64_t total_allocated = 0, total_reserved = 0;
  int64_t event = -1;  // the innermost open range on its thread, or -1
};

/// PyTorch's FunctionEventAvg: the events of one key (name, and input shapes when grouped).
struct EventAverage {
  std::string key;
  int64_t count = 0;
  int64_t cpu_time_total_ns = 0, self_cpu_time_total_ns = 0;
  int64_t cpu_memory_usage = 0, self_cpu_memory_usage = 0;
  // CUDA figures stay 0 until the CUDA backend records device time.
  int64_t cuda_time_total_ns = 0, self_cuda_time_total_ns = 0;
  int64_t cuda_memory_usage = 0, self_cuda_memory_usage = 0;
  std::string input_shapes;       // "[[64, 64], [64, 64]]" when grouped by shape, else ""
  std::vector<std::string> stack;  // group_by_stack_n frames
  double cpu_time_ns() const { return count ? double(cpu_time_total_ns) / double(count) : 0; }
  double cuda_time_ns() const { return count ? double(cuda_time_total_ns) / double(count) : 0; }
};

struct TableOptions {
  /// Descending by: cpu_time, cpu_time_total, self_cpu_time_total, cpu_memory_usage,
  /// self_cpu_memory_usage, count, and the cuda_ forms; empty: first-seen order.
  std::string sort_by = "";
  int64_t row_limit = 100;
  int64_t max_name_column_width = 55;
  int64_t max_shapes_column_width = 80;
  int64_t max_src_column_width = 75;
  bool top_level_events_only = false;
  std::string header = "";
};

class EventAverages : public std::vector<EventAverage> {
 public:
  /// PyTorch's table: Name | Self CPU % | Self CPU | CPU total % | CPU total | CPU time avg |
  /// [CPU Mem | Self CPU Mem] | # of Calls | [Input Shapes] | [Source Location], then
  /// "Self CPU time total: ...".
  std::string table(const TableOptions& options = {}) const;
  bool profile_memory = false;
  std::vector<bool> top_level;  // per row: has an event without a parent
};

struct KeyAveragesOptions {
  bool group_by_input_shape = false;
  int64_t group_by_stack_n = 0;
};

class profile;

struct ProfileOptions {
  std::vector<DeviceType> activities = {kCPU};
  /// None: record from start to stop. With one, step() advances it.
  Schedule schedule = nullptr;
  /// Runs after each RECORD_AND_SAVE step (and at stop() while recording) with the profile,
  /// whose events() are then that cycle's.
  std::function<void(profile&)> on_trace_ready = nullptr;
  bool record_shapes = false;
  bool profile_memory = false;
  /// Each op's C++ call sites (return addresses, symbolised when exported; see
  /// Note [Profiler stacks] in src/profiler/stack.cpp).
  bool with_stack = false;
};

/// A recording. The constructor starts it (one profile records at a time in a process); stop()
/// ends it early, start() begins a new one; the results are those of the last recording, and
/// asking for them while recording stops it first.
class profile {
 public:
  explicit profile(ProfileOptions options = {});
  ~profile();
  profile(const profile&) = delete;
  profile& operator=(const profile&) = delete;

  void start();
  void stop();
  /// Ends step N (its "ProfilerStep#N" range) and moves the schedule to step N + 1.
  void step();
  int64_t step_num() const { return step_num_; }
  bool recording() const;

  /// Finished ranges, ordered by start time (then longest first).
  const std::vector<Event>& events();
  const std::vector<MemoryEvent>& memory_events();
  EventAverages key_averages(const KeyAveragesOptions& options = {});
  /// The JSON Trace Event format, Kineto's object form: {"schemaVersion": 1, "traceEvents":
  /// [...]} with complete ("X") events, "[memory]" instant events and thread names.
  void export_chrome_trace(const std::string& path);
  /// "frame;frame;op value" lines for flame graphs (needs with_stack).
  void export_stacks(const std::string& path, const std::string& metric = "self_cpu_time_total");

 private:
  void begin_recording();
  void end_recording(bool keep);
  void trace_ready();
  void open_step_range();
  void close_step_range();
  ProfilerAction action(int64_t step) const;

  ProfileOptions options_;
  ProfilerAction current_ = ProfilerAction::NONE;
  bool started_ = false;
  bool delivering_ = false;  // inside on_trace_ready: results are the cycle's, no stop
  int64_t step_num_ = 0;
  uint64_t step_range_ = 0;  // the open ProfilerStep#N range
  int64_t epoch_ns_ = 0;     // the recording's time zero (steady clock)
  std::vector<Event> events_;
  std::vector<MemoryEvent> memory_;
  std::vector<std::pair<uint64_t, std::string>> thread_names_;
  std::vector<std::vector<uintptr_t>> raw_stacks_;  // per event, with_stack only
};

/// A named range on this thread (torch.profiler.record_function); ranges nest. Costs one
/// relaxed load when no profile records.
class record_function {
 public:
  explicit record_function(std::string name);
  ~record_function();
  record_function(const record_function&) = delete;
  record_function& operator=(const record_function&) = delete;

 private:
  uint64_t handle_;
};

/// True while a profile records (a cheap check for code that builds event names).
bool is_profiler_enabled();

}  // namespace ember::profiler
