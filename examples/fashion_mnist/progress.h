// Training progress: on a terminal a live bar redrawn in place (epoch, batches done/total,
// running loss, images/s, ETA); otherwise a plain line every `every` steps, so logs stay readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace fashion_mnist {

class Progress {
 public:
  Progress(std::ostream* out, bool tty, int64_t every = 100) : out_(out), tty_(tty), every_(every) {}

  /// A new epoch of `total` batches, of which `done` were finished before (a resumed epoch).
  void start(int64_t epoch, int64_t epochs, int64_t total, int64_t done);
  /// After each step: batches done in the epoch, the running mean loss, images this process.
  void update(int64_t done, double running_loss, int64_t images);
  /// Clears the bar before the epoch line is printed.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string line(int64_t done, double running_loss, int64_t images, double seconds) const;

  std::ostream* out_;
  bool tty_;
  int64_t every_;
  int64_t epoch_ = 0, epochs_ = 0, total_ = 0, first_ = 0;
  Clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

/// "m:ss" (or "h:mm:ss").
std::string format_duration(double seconds);

}  // namespace fashion_mnist
