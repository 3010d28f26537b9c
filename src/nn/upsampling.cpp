// Upsample: torch/nn/modules/upsampling.py (1.13) over F::interpolate.
#include "ember/nn/layers/upsampling.h"

#include "ember/nn/functional.h"
#include "ember/nn/layers/activation.h"
#include "ember/nn/layers/pooling.h"

namespace ember::nn {

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, {.size = options.size,
                                         .scale_factor = options.scale_factor,
                                         .mode = options.mode,
                                         .align_corners = options.align_corners,
                                         .recompute_scale_factor = options.recompute_scale_factor});
}

std::string UpsampleImpl::extra_repr() const {
  // PyTorch 1.13 prints the scale as float(s) (a tuple of floats when given one) and the mode
  // without quotes; align_corners is not shown.
  std::string s;
  if (!options.scale_factor.empty()) {
    const auto& f = options.scale_factor.values();
    s = "scale_factor=" + (f.size() == 1 ? detail::python_float(f[0]) : detail::python_tuple(f));
  } else {
    s = "size=" + detail::python_int_or_tuple(options.size);
  }
  return s + ", mode=" + options.mode;
}

}  // namespace ember::nn
