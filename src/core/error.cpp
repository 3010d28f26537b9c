// The single throw site for ember::Error.
#include "ember/error.h"

#include <cstring>

namespace ember::detail {

void throw_error(const char* op, const std::string& message) {
  std::string text;
  text.reserve(std::strlen(op) + message.size() + 3);
  text.append("[").append(op).append("] ").append(message);
  throw Error(text);
}

}  // namespace ember::detail
