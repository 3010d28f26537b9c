// The factory spellings LibTorch has beyond ember's: torch::tensor(std::vector<T>[, options]).
#pragma once

#include <type_traits>
#include <vector>

#include "c10/core/TensorOptions.h"
#include "ember/creation.h"

namespace torch {

/// A 1-d copy of `values`. As LibTorch's: floating values take the default dtype (as a braced
/// list does), integers their own type, unless the options name a dtype.
template <class T>
  requires std::is_arithmetic_v<T> && (!std::is_same_v<T, bool>)
ember::Tensor tensor(const std::vector<T>& values, const c10::TensorOptions& options = {}) {
  const ember::Dtype natural =
      std::is_floating_point_v<T> ? ember::default_dtype() : ember::dtype_of<T>();
  ember::Tensor t = ember::from_vector(values).to(options.has_dtype() ? options.dtype() : natural);
  if (options.has_device()) t = t.to(options.device());
  return options.requires_grad() ? t.requires_grad_(true) : t;
}

}  // namespace torch
