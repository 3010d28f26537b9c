// LibTorch's checks: TORCH_CHECK(cond, parts...), TORCH_INTERNAL_ASSERT, AT_ASSERT, AT_ERROR,
// TORCH_WARN. A failed check throws c10::Error (that is ember::Error) whose message is the parts
// streamed one after another, as LibTorch's, or the condition's text when there are none.
#pragma once

#include <iostream>
#include <sstream>
#include <string>

#include "ember/error.h"

namespace c10 {

using Error = ember::Error;

namespace detail {

template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  ((os << parts), ...);
  return os.str();
}

/// The message (or `fallback` when the check gave none), then LibTorch's second line:
/// "Exception raised from <function> at <file>:<line>".
[[noreturn]] inline void check_failed(const std::string& message, const char* fallback,
                                      const char* function, const char* file, int line) {
  throw ember::Error((message.empty() ? std::string(fallback) : message) +
                     "\nException raised from " + function + " at " + file + ":" +
                     std::to_string(line));
}

}  // namespace detail
}  // namespace c10

/// Throws c10::Error with the parts, streamed, when `cond` is false.
#define TORCH_CHECK(cond, ...)                                                               \
  do {                                                                                       \
    if (!(cond)) [[unlikely]]                                                                \
      ::c10::detail::check_failed(::c10::detail::concat(__VA_ARGS__),                        \
                                  "Expected " #cond " to be true, but got false.", __func__, \
                                  __FILE__, __LINE__);                                       \
  } while (false)
/// The same for conditions that only a bug in the program can break.
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                   \
  do {                                                                                     \
    if (!(cond)) [[unlikely]]                                                              \
      ::c10::detail::check_failed(::c10::detail::concat(__VA_ARGS__),                      \
                                  "Internal assertion failed: " #cond, __func__, __FILE__, \
                                  __LINE__);                                               \
  } while (false)
#define AT_ASSERT(cond, ...) TORCH_INTERNAL_ASSERT(cond, __VA_ARGS__)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define AT_ERROR(...)                                                                             \
  ::c10::detail::check_failed(::c10::detail::concat(__VA_ARGS__), "AT_ERROR", __func__, __FILE__, \
                              __LINE__)
#define TORCH_WARN(...) (std::cerr << "Warning: " << ::c10::detail::concat(__VA_ARGS__) << '\n')
