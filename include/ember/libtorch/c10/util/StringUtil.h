// c10::str(parts...): the parts streamed into one string (torch::str, at::str in programs).
#pragma once

#include <string>

#include "c10/util/Exception.h"

namespace c10 {

template <class... Parts>
std::string str(const Parts&... parts) {
  return detail::concat(parts...);
}

}  // namespace c10
