// A C++ RAII guard driven by a Python context manager's __enter__/__exit__ (python/ember calls
// enter() and exit()): the guard is made from the stored argument on enter() and destroyed on
// exit(). profiler.cpp's record_function ranges and cuda.cpp's stream guard are two.
#pragma once

#include <memory>
#include <utility>

namespace ember::python {

template <class Guard, class Arg>
class ContextGuard {
 public:
  explicit ContextGuard(Arg arg) : arg_(std::move(arg)) {}
  void enter() { guard_ = std::make_unique<Guard>(arg_); }
  void exit() { guard_.reset(); }

 private:
  Arg arg_;
  std::unique_ptr<Guard> guard_;
};

}  // namespace ember::python
