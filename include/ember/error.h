// ember::Error — the one exception type ember throws — and the check helper that builds it.
// Messages start with "[op]" and state what was expected and what was received, e.g.
//   [view] shape [5] is invalid for input of size 6
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ember {

/// With EMBER_SHOW_CPP_STACKTRACES=1 in the environment (LibTorch's TORCH_SHOW_CPP_STACKTRACES),
/// what() continues after the message with the user's call ("called from: ... at file:line") and
/// the C++ stack where the error was made (src/core/backtrace.cpp, Note [Error stack traces]).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  /// The message alone, without the stack trace.
  std::string_view what_without_backtrace() const { return {what(), message_size_}; }

 private:
  size_t message_size_;
};

namespace detail {

// Streams every argument into one string; used only on the failure path.
template <class... Args>
std::string cat_message(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

[[noreturn]] void throw_error(const char* op, const std::string& message);

}  // namespace detail

/// Throws ember::Error "[op] <args...>".
template <class... Args>
[[noreturn]] void fail(const char* op, const Args&... args) {
  detail::throw_error(op, detail::cat_message(args...));
}

}  // namespace ember

/// EMBER_CHECK(cond, "op", parts...) throws ember::Error("[op] parts...") when cond is false.
/// The message parts are evaluated only on failure, so checks cost one branch on the hot path.
#define EMBER_CHECK(cond, op, ...)                      \
  do {                                                  \
    if (!(cond)) [[unlikely]] ::ember::fail(op, __VA_ARGS__); \
  } while (0)
