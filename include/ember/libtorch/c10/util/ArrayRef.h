// c10::IntArrayRef: ember's IntArrayRef (a view of int64_t sizes, from a braced list, a vector
// or one number).
#pragma once

#include "ember/int_array.h"

namespace c10 {
using IntArrayRef = ember::IntArrayRef;
}  // namespace c10
