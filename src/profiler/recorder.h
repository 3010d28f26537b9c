// The profiler's recording side, for ember's own code: the op-entry scope's observer, the
// autograd engine, the allocator, the optimizers and the DataLoader call these. Each thread
// appends to its own buffer (Note [Profiler buffers] in recorder.cpp); when no profile records,
// every entry point is one relaxed atomic load.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/profiler.h"

namespace ember {
class Tensor;
}

namespace ember::profiler::detail {

enum Flag : uint32_t { kOn = 1, kShapes = 2, kMemory = 4, kStack = 8 };
extern std::atomic<uint32_t> g_flags;
inline uint32_t flags() { return g_flags.load(std::memory_order_relaxed); }
inline bool on() { return (flags() & kOn) != 0; }
inline bool memory_on() { return (flags() & kMemory) != 0; }

/// Opens a range on this thread; 0 when nothing records. `name` must outlive the profile
/// (a literal); the std::string form copies.
uint64_t begin_range(EventKind kind, const char* name);
uint64_t begin_range(EventKind kind, std::string name);
/// An op's range: its inputs' shapes and dtypes with record_shapes, its call site with
/// with_stack. Undefined tensors record as [].
uint64_t begin_op(const char* name, const Tensor* const* inputs, size_t num_inputs);
/// Closes a range begun on this thread (0 and ranges of an ended recording are ignored).
void end_range(uint64_t handle);

/// One allocator event (bytes < 0: a free) and the allocator's totals after it.
void record_memory(uintptr_t address, int64_t bytes, int64_t total_allocated,
                   int64_t total_reserved);

/// with_stack for programs in another language (the Python package): called at an op's entry
/// on the op's thread, it appends that language's call sites, innermost first, and returns
/// whether it could (false on a thread running none of that language's code). Once one is set,
/// events take their stacks from it alone: the C++ frames under an interpreter mean nothing to
/// its user, and an op without such frames (one the autograd engine runs) has no stack, as in
/// PyTorch.
using LanguageStackFn = bool (*)(std::vector<std::string>& frames);
void set_language_stack(LanguageStackFn fn);

/// Names this thread in traces ("DataLoader worker 0").
void set_thread_name(std::string name);

/// A range for the lifetime of a scope.
class Range {
 public:
  Range(EventKind kind, const char* name) : handle_(on() ? begin_range(kind, name) : 0) {}
  ~Range() {
    if (handle_) end_range(handle_);
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  uint64_t handle_;
};

// ── the recording session (profile.cpp) ──

struct RawEvent {
  const char* static_name = nullptr;  // else `name`
  std::string name;
  int64_t start_ns = 0, end_ns = -1;  // -1: still open
  int32_t parent = -1;                // index in this thread's events
  EventKind kind = EventKind::Op;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<const char*> types;
  std::vector<uintptr_t> stack;             // C++ return addresses, symbolized at the end
  std::vector<std::string> language_stack;  // or call sites from set_language_stack's function
};

struct RawMemory {
  int64_t time_ns;
  uintptr_t address;
  int64_t bytes, total_allocated, total_reserved;
  int32_t open_event;  // this thread's innermost open range, or -1
};

struct ThreadRecord {
  uint64_t thread = 0;
  std::string name;
  std::vector<RawEvent> events;
  std::vector<RawMemory> memory;
};

int64_t now_ns();
/// Starts recording with `flags` (kOn included); throws when a recording is already running.
void start_session(uint32_t flags);
/// Stops it and returns every thread's buffer; ranges still open end at `end_ns`.
std::vector<ThreadRecord> stop_session(int64_t end_ns);

}  // namespace ember::profiler::detail
