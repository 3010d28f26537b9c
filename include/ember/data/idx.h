// The idx file format of MNIST-style datasets (magic 00 00 <type> <ndim>, big-endian int32 dims,
// then the values row-major), plain or gzipped.
#pragma once

#include <string>

#include "ember/tensor.h"

namespace ember::data {

/// Reads an idx file (gzipped or not: detected from the content) into a tensor of its dims and
/// type (ubyte -> uint8, byte -> int8, short -> int16, int -> int32, float, double). Throws
/// ember::Error naming the file for a missing, truncated, oversized or corrupt file.
Tensor read_idx(const std::string& path);

}  // namespace ember::data
