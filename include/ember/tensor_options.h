// Options for creating tensors: {.dtype, .device, .requires_grad}; unset fields take defaults
// (the default float dtype or the dtype inferred from the data, the CPU, no grad).
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

struct TensorOptions {
  std::optional<Dtype> dtype = {};
  std::optional<Device> device = {};
  bool requires_grad = false;
};

}  // namespace ember
