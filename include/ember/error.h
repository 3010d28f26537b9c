// ember::Error — the one exception type ember throws — and the check helper that builds it.
// Messages start with "[op]" and state what was expected and what was received, e.g.
//   [view] shape [5] is invalid for input of size 6
#pragma once

#include <array>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

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

// Note [Error messages are built out of line]: fail() is called from hundreds of checks with
// different argument lists. It passes each argument as a MessagePart (its address and the one
// function that streams its type), and throw_error builds the message in error.cpp; so a check
// costs a few stores on its failure path, not an inlined std::ostringstream per argument list
// (they were 4% of the library's machine code).
struct MessagePart {
  const void* value;
  void (*write)(std::ostream& os, const void* value);
};

template <class T>
void write_part(std::ostream& os, const void* value) {
  os << *static_cast<const T*>(value);
}
void write_c_string(std::ostream& os, const void* value);

template <class T>
MessagePart message_part(const T& value) {
  if constexpr (std::is_array_v<T>) {
    static_assert(std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>,
                  "fail(): an array argument must be a string literal");
    return {value, &write_c_string};
  } else if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, char*>) {
    return {value, &write_c_string};
  } else {
    return {&value, &write_part<T>};
  }
}

/// Streams the parts into one string.
std::string cat_message(const MessagePart* parts, size_t count);
[[noreturn]] void throw_error(const char* op, const MessagePart* parts, size_t count);
[[noreturn]] void throw_error(const char* op, const std::string& message);

}  // namespace detail

/// Throws ember::Error "[op] <args...>".
template <class... Args>
[[noreturn]] void fail(const char* op, const Args&... args) {
  const std::array<detail::MessagePart, sizeof...(Args)> parts{detail::message_part(args)...};
  detail::throw_error(op, parts.data(), parts.size());
}

}  // namespace ember

/// EMBER_CHECK(cond, "op", parts...) throws ember::Error("[op] parts...") when cond is false.
/// The message parts are evaluated only on failure, so checks cost one branch on the hot path.
#define EMBER_CHECK(cond, op, ...)                      \
  do {                                                  \
    if (!(cond)) [[unlikely]] ::ember::fail(op, __VA_ARGS__); \
  } while (0)
