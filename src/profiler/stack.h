// with_stack: turning the return addresses captured at op entry into call-site names.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/profiler.h"

namespace ember::profiler {

/// Fills each event's `stack` from its raw addresses (events and raw are parallel).
void symbolize_stacks(const std::vector<std::vector<uintptr_t>>& raw, std::vector<Event>& events);

}  // namespace ember::profiler
