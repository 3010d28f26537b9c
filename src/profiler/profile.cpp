// profiler::profile: starting and stopping recordings, the schedule's state machine (PyTorch's
// action map: warm-up records and discards, the last active step hands the cycle to
// on_trace_ready), ProfilerStep#N ranges, and turning the threads' raw buffers into events
// with exact self times and memory attributed to the ranges that were open.
#include <algorithm>
#include <numeric>
#include <utility>

#include "ember/error.h"
#include "profiler/recorder.h"
#include "profiler/stack.h"

namespace ember::profiler {

Schedule schedule(ScheduleOptions o) {
  EMBER_CHECK(o.wait >= 0 && o.warmup >= 0 && o.active > 0 && o.repeat >= 0 && o.skip_first >= 0,
              "profiler", "schedule expects wait, warmup, repeat, skip_first >= 0 and active > 0, "
              "got wait=", o.wait, " warmup=", o.warmup, " active=", o.active, " repeat=",
              o.repeat, " skip_first=", o.skip_first);
  return [o](int64_t step) {
    if (step < o.skip_first) return ProfilerAction::NONE;
    step -= o.skip_first;
    const int64_t cycle = o.wait + o.warmup + o.active;
    if (o.repeat > 0 && step / cycle >= o.repeat) return ProfilerAction::NONE;
    const int64_t in_cycle = step % cycle;
    if (in_cycle < o.wait) return ProfilerAction::NONE;
    if (in_cycle < o.wait + o.warmup) return ProfilerAction::WARMUP;
    return in_cycle < cycle - 1 ? ProfilerAction::RECORD : ProfilerAction::RECORD_AND_SAVE;
  };
}

bool is_profiler_enabled() { return detail::on(); }

record_function::record_function(std::string name)
    : handle_(detail::on() ? detail::begin_range(EventKind::UserAnnotation, std::move(name))
                           : 0) {}

record_function::~record_function() { detail::end_range(handle_); }

profile::profile(ProfileOptions options) : options_(std::move(options)) {
  for (DeviceType d : options_.activities)
    EMBER_CHECK(d == kCPU || d == kCUDA, "profiler", "unknown activity");
  start();
}

profile::~profile() {
  try {
    if (started_) stop();
  } catch (...) {
    // A throwing on_trace_ready must not escape a destructor.
  }
}

ProfilerAction profile::action(int64_t step) const {
  return options_.schedule ? options_.schedule(step) : ProfilerAction::RECORD;
}

bool profile::recording() const {
  return started_ && (current_ == ProfilerAction::RECORD ||
                      current_ == ProfilerAction::RECORD_AND_SAVE ||
                      current_ == ProfilerAction::WARMUP);
}

void profile::begin_recording() {
  uint32_t f = 0;
  if (options_.record_shapes) f |= detail::kShapes;
  if (options_.profile_memory) f |= detail::kMemory;
  if (options_.with_stack) f |= detail::kStack;
  epoch_ns_ = detail::now_ns();
  detail::start_session(f);
}

void profile::start() {
  if (started_) return;
  started_ = true;
  step_num_ = 0;
  current_ = action(0);
  if (current_ != ProfilerAction::NONE) begin_recording();
  open_step_range();
}

void profile::open_step_range() {
  // As PyTorch, only a scheduled profile marks its steps.
  if (options_.schedule)
    step_range_ = detail::begin_range(EventKind::UserAnnotation,
                                      "ProfilerStep#" + std::to_string(step_num_));
}

void profile::close_step_range() { detail::end_range(std::exchange(step_range_, 0)); }

void profile::step() {
  EMBER_CHECK(started_, "profiler", "step() on a profile that is not started");
  close_step_range();
  const ProfilerAction previous = current_;
  current_ = action(++step_num_);
  using A = ProfilerAction;
  const bool was_on = previous != A::NONE, now_on = current_ != A::NONE;
  if (previous == A::RECORD_AND_SAVE) {
    end_recording(true);
    trace_ready();
    if (now_on) begin_recording();
  } else if (previous == A::WARMUP && (current_ == A::RECORD || current_ == A::RECORD_AND_SAVE)) {
    end_recording(false);  // the warm-up's events are not part of the trace
    begin_recording();
  } else if (was_on && !now_on) {
    end_recording(previous != A::WARMUP);  // a schedule that stops recording before saving
  } else if (!was_on && now_on) {
    begin_recording();
  }
  open_step_range();
}

void profile::stop() {
  if (!started_) return;
  close_step_range();
  const ProfilerAction last = current_;
  started_ = false;
  current_ = ProfilerAction::NONE;
  if (last == ProfilerAction::NONE) return;
  end_recording(last != ProfilerAction::WARMUP);
  if (last != ProfilerAction::WARMUP) trace_ready();
}

void profile::trace_ready() {
  if (!options_.on_trace_ready) return;
  delivering_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{delivering_};
  options_.on_trace_ready(*this);
}

const std::vector<Event>& profile::events() {
  if (started_ && !delivering_) stop();
  return events_;
}

const std::vector<MemoryEvent>& profile::memory_events() {
  if (started_ && !delivering_) stop();
  return memory_;
}

void profile::end_recording(bool keep) {
  const int64_t end = detail::now_ns();
  std::vector<detail::ThreadRecord> threads = detail::stop_session(end);
  if (!keep) return;
  events_.clear();
  memory_.clear();
  thread_names_.clear();

  // Flatten, remembering where each thread's events start, then order by (start, longest).
  struct Ref {
    size_t thread, index;
  };
  std::vector<Ref> refs;
  for (size_t t = 0; t < threads.size(); ++t)
    for (size_t i = 0; i < threads[t].events.size(); ++i) refs.push_back({t, i});
  auto raw = [&](const Ref& r) -> detail::RawEvent& { return threads[r.thread].events[r.index]; };
  std::stable_sort(refs.begin(), refs.end(), [&](const Ref& a, const Ref& b) {
    const auto &x = raw(a), &y = raw(b);
    return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
  });
  std::vector<std::vector<int64_t>> position(threads.size());
  for (size_t t = 0; t < threads.size(); ++t) position[t].resize(threads[t].events.size());
  for (size_t k = 0; k < refs.size(); ++k) position[refs[k].thread][refs[k].index] = int64_t(k);

  events_.resize(refs.size());
  std::vector<std::vector<uintptr_t>> stacks(refs.size());
  for (size_t k = 0; k < refs.size(); ++k) {
    detail::RawEvent& r = raw(refs[k]);
    Event& e = events_[k];
    e.name = r.static_name ? std::string(r.static_name) : std::move(r.name);
    e.kind = r.kind;
    e.thread = threads[refs[k].thread].thread;
    e.start_ns = r.start_ns - epoch_ns_;
    e.end_ns = (r.end_ns < 0 ? end : r.end_ns) - epoch_ns_;
    e.cpu_time_total_ns = e.end_ns - e.start_ns;
    e.parent = r.parent < 0 ? -1 : position[refs[k].thread][size_t(r.parent)];
    e.input_shapes = std::move(r.shapes);
    for (const char* type : r.types) e.input_types.emplace_back(type);
    stacks[k] = std::move(r.stack);
    e.stack = std::move(r.language_stack);
  }
  for (size_t k = 0; k < events_.size(); ++k)
    if (events_[k].parent >= 0) events_[size_t(events_[k].parent)].children.push_back(int64_t(k));
  for (Event& e : events_) {
    int64_t children = 0;
    for (int64_t c : e.children) children += events_[size_t(c)].cpu_time_total_ns;
    e.self_cpu_time_total_ns = e.cpu_time_total_ns - children;
  }
  if (options_.with_stack) symbolize_stacks(stacks, events_);

  for (size_t t = 0; t < threads.size(); ++t) {
    if (!threads[t].events.empty() || !threads[t].memory.empty())
      thread_names_.emplace_back(threads[t].thread, threads[t].name);
    for (const detail::RawMemory& m : threads[t].memory) {
      const int64_t owner = m.open_event < 0 ? -1 : position[t][size_t(m.open_event)];
      memory_.push_back({m.time_ns - epoch_ns_, threads[t].thread, m.address, m.bytes,
                         m.total_allocated, m.total_reserved, owner});
      if (owner < 0) continue;
      events_[size_t(owner)].self_cpu_memory_usage += m.bytes;
      for (int64_t e = owner; e >= 0; e = events_[size_t(e)].parent)
        events_[size_t(e)].cpu_memory_usage += m.bytes;
    }
  }
  std::stable_sort(memory_.begin(), memory_.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
}

}  // namespace ember::profiler
