// The NCCL backend's watchdog, apart from NCCL so that every build compiles and tests it: NCCL
// collectives are queued on a stream and never return an error themselves, so a hung or failed
// one is noticed by polling, as c10d's ProcessGroupNCCL watchdog does. Each poll retires the
// finished collectives, asks the communicator for an asynchronous error (ncclCommGetAsyncError)
// and checks the oldest unfinished collective against the timeout; on either it aborts the
// communicator (ncclCommAbort, once: the hung kernels then return) and keeps an error naming the
// op, its sequence number and the rank, in the Gloo backend's words.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ember::dist {

/// What the watchdog needs of a communicator (the NCCL backend's, or a test's fake).
class WatchedCommunicator {
 public:
  virtual ~WatchedCommunicator() = default;
  /// ncclCommGetAsyncError: empty while the communicator is fine, else NCCL's words.
  virtual std::string async_error() = 0;
  /// ncclCommAbort: makes its queued and running collectives return.
  virtual void abort() = 0;
};

class NcclWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  /// "[op #seq] rank r: " for the group (ProcessGroup::Impl::prefix).
  using Prefix = std::function<std::string(const std::string& op, int64_t seq)>;

  NcclWatchdog(WatchedCommunicator& comm, std::chrono::milliseconds timeout, Prefix prefix);

  /// Collective number `seq` was queued at `now`; `done` says whether its end event has passed
  /// (cudaEventQuery), called only from poll().
  void started(int64_t seq, std::string op, std::function<bool()> done, Clock::time_point now);

  /// One look at `now`. Returns the error when this poll found one (an async error, or the
  /// oldest unfinished collective older than the timeout) and aborted the communicator; later
  /// polls return nothing and never abort again. Collectives whose `done` holds are retired.
  std::optional<std::string> poll(Clock::time_point now);

  bool aborted() const { return aborted_; }
  /// The error that aborted the communicator ("" before).
  const std::string& error() const { return error_; }
  /// Collectives queued and not yet seen to finish.
  size_t in_flight() const { return in_flight_.size(); }

 private:
  struct Entry {
    int64_t seq;
    std::string op;
    std::function<bool()> done;
    Clock::time_point start;
  };
  std::optional<std::string> abort_with(std::string message);

  WatchedCommunicator& comm_;
  std::chrono::milliseconds timeout_;
  Prefix prefix_;
  std::deque<Entry> in_flight_;  // in queue order: the front is the oldest
  bool aborted_ = false;
  std::string error_;
};

/// An NcclWatchdog polled by its own thread every `period`, for a communicator whose collectives
/// are enqueued on one thread while the watchdog looks from another (the NCCL communicator's and
/// the tests' fake's). Its error is kept for the communicator's next call.
class WatchdogThread {
 public:
  WatchdogThread(WatchedCommunicator& comm, std::chrono::milliseconds timeout,
                 NcclWatchdog::Prefix prefix, std::chrono::milliseconds period);
  ~WatchdogThread() { stop(); }
  WatchdogThread(const WatchdogThread&) = delete;
  WatchdogThread& operator=(const WatchdogThread&) = delete;

  /// Starts polling: once the communicator can answer async_error().
  void start();
  /// Stops polling (waits for a poll under way): before the communicator it watches goes.
  void stop();
  /// Collective number `seq` was enqueued now; `done` is asked from the watchdog's thread.
  void started(int64_t seq, std::string op, std::function<bool()> done);
  /// The error that aborted the communicator, "" before.
  std::string error();
  bool aborted();

 private:
  std::chrono::milliseconds period_;
  std::mutex mutex_;  // guards watchdog_ and stopping_
  std::condition_variable stop_;
  NcclWatchdog watchdog_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ember::dist
