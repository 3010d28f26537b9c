// --tee: a worker's stream comes through a pipe; each line goes to the console prefixed with
// "[<role><rank>]:" (torchrun's layout) and, unprefixed, to the stream's log file.
#pragma once

#include <string>

namespace ember_run {

class OutputRelay {
 public:
  /// `console_fd` is 1 or 2; `log_path` may be empty (console only).
  OutputRelay(std::string prefix, int console_fd, const std::string& log_path);
  ~OutputRelay();
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  int read_fd() const { return read_fd_; }
  /// The worker (and whatever it started) closed the stream: nothing more to poll for.
  bool at_end() const { return at_end_; }
  /// The pipe's write end for the worker; close_write_end() once the worker has it.
  int write_fd() const { return write_fd_; }
  void close_write_end();
  /// Reads what is available. Returns false at end of file (then flushes a last partial line).
  bool pump();
  /// Reads until end of file (after the worker has exited), flushing everything.
  void drain();

 private:
  void emit(const char* data, std::size_t size);
  void flush_partial_line();

  std::string prefix_;
  int console_fd_;
  int log_fd_ = -1;
  int read_fd_ = -1, write_fd_ = -1;
  std::string line_;  // an unfinished line
  bool at_end_ = false;
};

}  // namespace ember_run
