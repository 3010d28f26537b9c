// c10::variant and its helpers: LibTorch 1.13's own variant, std::variant's twin. The options
// whose value is one of several enums (reduction, padding_mode, mode, ...) hold one.
#pragma once

#include <variant>

namespace c10 {
using std::get;
using std::get_if;
using std::holds_alternative;
using std::monostate;
using std::variant;
using std::visit;
}  // namespace c10
