// The element-wise reductions Gloo calls (out = a op b over n elements), one per dtype and op,
// written here so float16 and bfloat16 reduce through float like the rest of ember.
#pragma once

#include <cstddef>

#include "ember/distributed/process_group.h"

namespace ember::dist {

using GlooReduceFunction = void (*)(void* out, const void* a, const void* b, size_t n);

/// The function for dtype and op (AVG reduces with SUM; divide_for_average finishes it).
/// Errors name `op_name` and the dtype when the pair is not supported.
GlooReduceFunction reduce_function(Dtype dtype, ReduceOp op, const char* op_name);

/// data[i] /= divisor for n elements of a floating dtype (the second half of AVG).
void divide_for_average(void* data, Dtype dtype, size_t n, int divisor);

}  // namespace ember::dist
