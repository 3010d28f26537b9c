// Progress bar and plain progress lines (see progress.h).
#include "progress.h"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace fashion_mnist {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = int64_t(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)(s / 3600),
                  (long long)(s / 60 % 60), (long long)(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)(s / 60), (long long)(s % 60));
  }
  return buf;
}

void Progress::start(int64_t epoch, int64_t epochs, int64_t total, int64_t done) {
  epoch_ = epoch;
  epochs_ = epochs;
  total_ = total;
  first_ = done;
  start_ = last_draw_ = Clock::now();
  drawn_ = false;
}

std::string Progress::line(int64_t done, double running_loss, int64_t images,
                           double seconds) const {
  const double rate = seconds > 0 ? double(images) / seconds : 0;
  // The ETA extrapolates this process's pace over the batches still to come.
  const int64_t ran = done - first_;
  const double eta = ran > 0 ? seconds / double(ran) * double(total_ - done) : NAN;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld/%lld | Loss %.4f | %.0f img/s | ETA %s", (long long)done,
                (long long)total_, running_loss, rate, format_duration(eta).c_str());
  return buf;
}

void Progress::update(int64_t done, double running_loss, int64_t images) {
  if (!out_) return;
  const auto now = Clock::now();
  const double seconds = std::chrono::duration<double>(now - start_).count();
  if (tty_) {
    // Redrawing costs a syscall; ten frames a second is smooth enough.
    if (drawn_ && done < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    drawn_ = true;
    constexpr int kWidth = 24;
    const int filled = total_ > 0 ? int(kWidth * done / total_) : kWidth;
    std::string bar(size_t(filled), '=');
    if (filled < kWidth) bar += '>' + std::string(size_t(kWidth - filled - 1), ' ');
    *out_ << "\r\033[K" << "Epoch " << epoch_ << " (" << epoch_ + 1 << " of " << epochs_ << ") [" << bar << "] "
          << line(done, running_loss, images, seconds) << std::flush;
  } else if (every_ > 0 && (done % every_ == 0 || done == total_) && done > first_) {
    *out_ << "Epoch " << epoch_ << " Step " << line(done, running_loss, images, seconds) << "\n"
          << std::flush;
  }
}

void Progress::finish() {
  if (out_ && tty_ && drawn_) *out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace fashion_mnist
