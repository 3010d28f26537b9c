// The single throw site for ember::Error, and Error's stack trace (core/backtrace.h).
#include "ember/error.h"

#include <cstring>
#include <sstream>

#include "core/backtrace.h"

namespace ember {
namespace {

std::string with_stack(const std::string& message) {
  if (!detail::show_cpp_stacktraces()) return message;
  return message + "\n" + detail::describe_stack();
}

}  // namespace

Error::Error(const std::string& message)
    : std::runtime_error(with_stack(message)), message_size_(message.size()) {}

namespace detail {

void write_c_string(std::ostream& os, const void* value) { os << static_cast<const char*>(value); }

std::string cat_message(const MessagePart* parts, size_t count) {
  std::ostringstream os;
  for (size_t i = 0; i < count; ++i) parts[i].write(os, parts[i].value);
  return os.str();
}

void throw_error(const char* op, const MessagePart* parts, size_t count) {
  throw_error(op, cat_message(parts, count));
}

void throw_error(const char* op, const std::string& message) {
  std::string text;
  text.reserve(std::strlen(op) + message.size() + 3);
  text.append("[").append(op).append("] ").append(message);
  throw Error(text);
}

}  // namespace detail
}  // namespace ember
