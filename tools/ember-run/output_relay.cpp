#include "output_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ember_run {
namespace {

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a closed console must not stop the job
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

OutputRelay::OutputRelay(std::string prefix, int console_fd, const std::string& log_path)
    : prefix_(std::move(prefix)), console_fd_(console_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  fcntl(read_fd_, F_SETFL, fcntl(read_fd_, F_GETFL) | O_NONBLOCK);
  if (!log_path.empty()) {
    log_fd_ = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd_ < 0) throw std::runtime_error("cannot open " + log_path + ": " + strerror(errno));
  }
}

OutputRelay::~OutputRelay() {
  flush_partial_line();
  for (int fd : {read_fd_, write_fd_, log_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void OutputRelay::close_write_end() {
  if (write_fd_ >= 0) close(write_fd_);
  write_fd_ = -1;
}

bool OutputRelay::pump() {
  if (at_end_) return false;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(read_fd_, buffer, sizeof buffer);
    if (n > 0) {
      emit(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    flush_partial_line();
    at_end_ = true;
    return false;  // end of file (or an error, which ends the stream too)
  }
}

void OutputRelay::drain() {
  // The worker has exited, but a grandchild may still hold the pipe open: take what is there.
  pump();
  flush_partial_line();
}

void OutputRelay::emit(const char* data, std::size_t size) {
  if (log_fd_ >= 0) write_all(log_fd_, data, size);
  std::size_t start = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] != '\n') continue;
    std::string line = prefix_ + line_;
    line.append(data + start, i + 1 - start);
    write_all(console_fd_, line.data(), line.size());  // one write per line: lines never interleave
    line_.clear();
    start = i + 1;
  }
  line_.append(data + start, size - start);
}

void OutputRelay::flush_partial_line() {
  if (line_.empty()) return;
  const std::string line = prefix_ + line_ + "\n";
  write_all(console_fd_, line.data(), line.size());
  line_.clear();
}

}  // namespace ember_run
