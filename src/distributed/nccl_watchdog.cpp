// See nccl_watchdog.h.
#include "distributed/nccl_watchdog.h"

#include <algorithm>

#include "distributed/store_detail.h"

namespace ember::dist {

NcclWatchdog::NcclWatchdog(WatchedCommunicator& comm, std::chrono::milliseconds timeout,
                           Prefix prefix)
    : comm_(comm), timeout_(timeout), prefix_(std::move(prefix)) {}

void NcclWatchdog::started(int64_t seq, std::string op, std::function<bool()> done,
                           Clock::time_point now) {
  in_flight_.push_back({seq, std::move(op), std::move(done), now});
}

std::optional<std::string> NcclWatchdog::abort_with(std::string message) {
  aborted_ = true;
  error_ = std::move(message);
  comm_.abort();
  return error_;
}

std::optional<std::string> NcclWatchdog::poll(Clock::time_point now) {
  if (aborted_) return std::nullopt;
  // Collectives on one stream finish in order, but an event may be seen late: retire every
  // finished one, not only a finished front.
  std::erase_if(in_flight_, [](const Entry& e) { return e.done(); });
  if (std::string nccl = comm_.async_error(); !nccl.empty()) {
    // Blame the oldest unfinished collective: the one the failure stopped.
    const std::string where = in_flight_.empty()
                                  ? prefix_("nccl", 0)
                                  : prefix_(in_flight_.front().op, in_flight_.front().seq);
    return abort_with(where + "NCCL error: " + nccl + " (the communicator was aborted)");
  }
  if (!in_flight_.empty() && now - in_flight_.front().start > timeout_) {
    const Entry& e = in_flight_.front();
    return abort_with(prefix_(e.op, e.seq) + "timed out after " +
                      detail::format_duration(timeout_) +
                      " (NCCL watchdog: the collective did not finish; a rank is hung, stopped "
                      "or far behind; the communicator was aborted)");
  }
  return std::nullopt;
}

WatchdogThread::WatchdogThread(WatchedCommunicator& comm, std::chrono::milliseconds timeout,
                               NcclWatchdog::Prefix prefix, std::chrono::milliseconds period)
    : period_(period), watchdog_(comm, timeout, std::move(prefix)) {}

void WatchdogThread::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WatchdogThread::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      watchdog_.poll(NcclWatchdog::Clock::now());  // keeps its error: error() reads it
      stop_.wait_for(lock, period_, [this] { return stopping_; });
    }
  });
}

void WatchdogThread::started(int64_t seq, std::string op, std::function<bool()> done) {
  std::lock_guard lock(mutex_);
  watchdog_.started(seq, std::move(op), std::move(done), NcclWatchdog::Clock::now());
}

std::string WatchdogThread::error() {
  std::lock_guard lock(mutex_);
  return watchdog_.error();
}

bool WatchdogThread::aborted() {
  std::lock_guard lock(mutex_);
  return watchdog_.aborted();
}

}  // namespace ember::dist
