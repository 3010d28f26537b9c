// c10::optional and c10::nullopt: LibTorch 1.13's own optional, std::optional's twin.
#pragma once

#include <optional>

namespace c10 {
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;
}  // namespace c10
