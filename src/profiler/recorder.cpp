// Note [Profiler buffers]
// Every thread that records while a profile runs gets its own buffer, registered once per
// recording with the session and kept alive by both (the thread may exit first: DataLoader
// workers do). A buffer has its own mutex, taken by its thread per event and by stop_session
// once, so it is never contended in the hot path; a range is named by a handle (the
// recording's generation and the event's index), and a handle of an ended recording is
// ignored, so a range that straddles stop() or a restart closes harmlessly. When no profile
// records, the only cost anywhere is the relaxed load of g_flags.
#include "profiler/recorder.h"

#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "core/allocator.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "profiler/op_observer.h"

namespace ember::profiler::detail {

std::atomic<uint32_t> g_flags{0};

namespace {

struct ThreadBuffer {
  uint32_t generation = 0;
  std::mutex mutex;
  bool closed = false;
  ThreadRecord record;
  std::vector<int32_t> open;  // indices of the open ranges, innermost last
};

struct Session {
  uint32_t generation = 0;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

std::mutex g_session_mutex;
Session* g_session = nullptr;  // guarded by g_session_mutex
std::atomic<uint32_t> g_generation{0};

thread_local std::shared_ptr<ThreadBuffer> t_buffer;
std::atomic<LanguageStackFn> g_language_stack{nullptr};
thread_local std::string t_thread_name;

uint64_t os_thread_id() {
  thread_local const uint64_t id = uint64_t(::syscall(SYS_gettid));
  return id;
}

// This thread's buffer in the running recording (registering it on first use), or null.
ThreadBuffer* current_buffer() {
  const uint32_t generation = g_generation.load(std::memory_order_acquire);
  if (t_buffer && t_buffer->generation == generation) return t_buffer.get();
  std::lock_guard lock(g_session_mutex);
  if (!g_session || g_session->generation != generation) return nullptr;
  auto buffer = std::make_shared<ThreadBuffer>();
  buffer->generation = generation;
  buffer->record.thread = os_thread_id();
  buffer->record.name = t_thread_name;
  g_session->buffers.push_back(buffer);
  t_buffer = std::move(buffer);
  return t_buffer.get();
}

uint64_t make_handle(uint32_t generation, size_t index) {
  return (uint64_t(generation) << 32) | uint64_t(index + 1);
}

// Appends an open event and returns it with its handle (null when nothing records).
template <class Fill>
uint64_t open_event(EventKind kind, Fill&& fill) {
  const int64_t start = now_ns();
  ThreadBuffer* b = current_buffer();
  if (!b) return 0;
  std::lock_guard lock(b->mutex);
  if (b->closed) return 0;
  auto& events = b->record.events;
  const size_t index = events.size();
  RawEvent& e = events.emplace_back();
  e.kind = kind;
  e.parent = b->open.empty() ? -1 : b->open.back();
  fill(e);
  e.start_ns = start;
  b->open.push_back(int32_t(index));
  return make_handle(b->generation, index);
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t begin_range(EventKind kind, const char* name) {
  if (!on()) return 0;
  return open_event(kind, [&](RawEvent& e) { e.static_name = name; });
}

uint64_t begin_range(EventKind kind, std::string name) {
  if (!on()) return 0;
  return open_event(kind, [&](RawEvent& e) { e.name = std::move(name); });
}

uint64_t begin_op(const char* name, const Tensor* const* inputs, size_t num_inputs) {
  const uint32_t f = flags();
  if (!(f & kOn)) return 0;
  return open_event(EventKind::Op, [&](RawEvent& e) {
    e.static_name = name;
    if (f & kShapes) {
      e.shapes.reserve(num_inputs);
      e.types.reserve(num_inputs);
      for (size_t i = 0; i < num_inputs; ++i) {
        const Tensor* t = inputs[i];
        if (t && t->defined()) {
          const IntArrayRef sizes = t->sizes();
          e.shapes.emplace_back(sizes.begin(), sizes.end());
          e.types.push_back(dtype_name(t->dtype()));
        } else {
          e.shapes.emplace_back();
          e.types.push_back("");
        }
      }
    }
    if (f & kStack) {
      if (LanguageStackFn language = g_language_stack.load(std::memory_order_acquire)) {
        language(e.language_stack);
        return;
      }
      void* frames[32];
      const int n = ::backtrace(frames, 32);
      e.stack.reserve(size_t(n));
      for (int i = 0; i < n; ++i) e.stack.push_back(reinterpret_cast<uintptr_t>(frames[i]));
    }
  });
}

void end_range(uint64_t handle) {
  if (!handle) return;
  const int64_t end = now_ns();
  ThreadBuffer* b = t_buffer.get();
  if (!b || b->generation != uint32_t(handle >> 32)) return;
  std::lock_guard lock(b->mutex);
  if (b->closed) return;
  const auto index = int32_t((handle & 0xffffffffu) - 1);
  b->record.events[size_t(index)].end_ns = end;
  // Ranges close innermost first; one closed out of order (a ProfilerStep range ended from
  // inside another range) leaves the ranges it enclosed open.
  auto it = std::find(b->open.rbegin(), b->open.rend(), index);
  if (it != b->open.rend()) b->open.erase(std::next(it).base());
}

void record_memory(uintptr_t address, int64_t bytes, int64_t total_allocated,
                   int64_t total_reserved) {
  if (!memory_on()) return;
  const int64_t t = now_ns();
  ThreadBuffer* b = current_buffer();
  if (!b) return;
  std::lock_guard lock(b->mutex);
  if (b->closed) return;
  b->record.memory.push_back({t, address, bytes, total_allocated, total_reserved,
                              b->open.empty() ? -1 : b->open.back()});
}

void set_language_stack(LanguageStackFn fn) {
  g_language_stack.store(fn, std::memory_order_release);
}

void set_thread_name(std::string name) {
  t_thread_name = std::move(name);
  if (ThreadBuffer* b = t_buffer.get()) {
    std::lock_guard lock(b->mutex);
    b->record.name = t_thread_name;
  }
}

void start_session(uint32_t session_flags) {
  std::lock_guard lock(g_session_mutex);
  EMBER_CHECK(g_session == nullptr, "profiler",
              "another profile is already recording in this process (stop it first)");
  g_session = new Session();
  g_session->generation = g_generation.load() + 1;
  g_generation.store(g_session->generation, std::memory_order_release);
  g_flags.store(session_flags | kOn, std::memory_order_release);
  install_op_observer(true);
  if (session_flags & kMemory) set_memory_observer(&record_memory);
}

std::vector<ThreadRecord> stop_session(int64_t end_ns) {
  std::unique_ptr<Session> session;
  {
    std::lock_guard lock(g_session_mutex);
    g_flags.store(0, std::memory_order_release);
    set_memory_observer(nullptr);
    if (g_session) install_op_observer(false);
    session.reset(std::exchange(g_session, nullptr));
  }
  std::vector<ThreadRecord> records;
  if (!session) return records;
  for (auto& b : session->buffers) {
    std::lock_guard lock(b->mutex);
    b->closed = true;
    for (int32_t i : b->open) b->record.events[size_t(i)].end_ns = end_ns;
    b->open.clear();
    records.push_back(std::move(b->record));
  }
  return records;
}

}  // namespace ember::profiler::detail
