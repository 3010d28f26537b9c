// CUDA devices, streams, events and the caching allocator's memory statistics: PyTorch's
// torch.cuda. In a build without CUDA, is_available() is false, device_count() is 0,
// empty_cache() has nothing to do, and anything else throws ember::Error saying ember was built
// without CUDA (rebuild with -DEMBER_CUDA=ON). A CUDA build on a machine without a GPU behaves
// the same, with "no CUDA device is available" as the reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "ember/device.h"

namespace ember::cuda {

// ── devices ─────────────────────────────────────────────────────────────────────────────────
bool is_available();
int device_count();
/// The index of this thread's current device.
int current_device();
/// Makes device `index` current for this thread.
void set_device(int index);
/// The device's name ("NVIDIA H200"); -1: the current device.
std::string get_device_name(int index = -1);
/// Waits until all work queued on `device` (by default the current one) is done.
void synchronize(Device device = kCUDA);

class Event;

// ── streams ─────────────────────────────────────────────────────────────────────────────────
/// A CUDA stream: a cheap value naming a device and a cudaStream_t. As in PyTorch, a new
/// Stream comes from a per-device pool of streams that live as long as the process.
class Stream {
 public:
  /// A stream from `device`'s pool (torch.cuda.Stream()).
  explicit Stream(Device device = kCUDA);
  /// `device`'s default (null) stream.
  static Stream default_stream(Device device = kCUDA);

  Device device() const { return Device(kCUDA, device_); }
  /// The cudaStream_t, for calling CUDA libraries directly.
  void* handle() const { return handle_; }
  /// Whether all work queued on the stream is done.
  bool query() const;
  void synchronize() const;
  /// Work queued on this stream from now on waits for `event`.
  void wait_event(const Event& event) const;
  /// Work queued on this stream from now on waits for the work queued on `other` so far.
  void wait_stream(const Stream& other) const;

  friend bool operator==(const Stream& a, const Stream& b) {
    return a.device_ == b.device_ && a.handle_ == b.handle_;
  }

 private:
  friend Stream current_stream(Device);
  Stream(int device, void* handle) : device_(device), handle_(handle) {}
  int device_;
  void* handle_;
};

/// This thread's current stream on `device` (the default stream unless a StreamGuard says other).
Stream current_stream(Device device = kCUDA);

/// Makes `stream` the current stream of its device, and its device the current device, until
/// the guard goes (torch.cuda.stream(s)); the previous ones come back then.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_stream_;  // on the guarded stream's device
  [[maybe_unused]] int previous_device_;  // restored by the CUDA build's destructor
};

// ── events ──────────────────────────────────────────────────────────────────────────────────
/// A CUDA event (torch.cuda.Event): created on its first record(), on the stream's device.
class Event {
 public:
  explicit Event(bool enable_timing = false) : timing_(enable_timing) {}
  ~Event();
  Event(Event&& other) noexcept : timing_(false) { *this = std::move(other); }
  /// Swaps: `other`'s destructor destroys the event this one held.
  Event& operator=(Event&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(device_, other.device_);
    std::swap(timing_, other.timing_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  /// Records the event on `stream` (by default the current stream of the current device).
  void record();
  void record(const Stream& stream);
  /// Whether the work before the last record() is done (true when never recorded).
  bool query() const;
  /// Waits on the host for the work before the last record().
  void synchronize() const;
  /// Makes `stream` wait for this event (Stream::wait_event).
  void wait(const Stream& stream) const;
  /// Milliseconds from this event to `end`; both recorded with enable_timing, and complete.
  float elapsed_time(const Event& end) const;

  bool is_created() const { return handle_ != nullptr; }
  void* handle() const { return handle_; }

 private:
  void* handle_ = nullptr;  // the cudaEvent_t
  int device_ = -1;
  bool timing_;
};

// ── memory (the caching allocator; src/backend/cuda/caching_allocator.h) ──────────────────────
/// Bytes held by tensors on `device` (blocks handed out, rounded to the allocator's sizes).
int64_t memory_allocated(Device device = kCUDA);
int64_t max_memory_allocated(Device device = kCUDA);
/// Bytes the allocator holds from the driver: allocated plus cached.
int64_t memory_reserved(Device device = kCUDA);
int64_t max_memory_reserved(Device device = kCUDA);
/// Restarts every peak statistic from the current value.
void reset_peak_memory_stats(Device device = kCUDA);
/// Zeroes the historical totals ("allocated"/"freed" keys, retry and OOM counters).
void reset_accumulated_memory_stats(Device device = kCUDA);
/// Returns every device's wholly free cached segments to the driver.
void empty_cache();
/// torch.cuda.memory_stats(): "allocated_bytes.all.current", "reserved_bytes.large_pool.peak", ...
std::map<std::string, int64_t> memory_stats(Device device = kCUDA);
/// torch.cuda.memory_summary(): the statistics as a 75-column table.
std::string memory_summary(Device device = kCUDA, bool abbreviated = false);

}  // namespace ember::cuda
