// torch::nn::functional's adapters that are not one-liners: interpolate's options and the
// adaptive pools' output sizes with "keep the input's size" entries.
#include <vector>

#include "ember/error.h"
#include "torch/nn/functional/pooling.h"
#include "torch/nn/functional/upsampling.h"

namespace torch::nn::functional::detail {

ember::nn::functional::InterpolateFuncOptions interpolate_options(const InterpolateFuncOptions& o) {
  EMBER_CHECK(!o.antialias(), "interpolate", "antialias(true) is not supported");
  ember::nn::functional::InterpolateFuncOptions out;
  if (o.size()) out.size = *o.size();
  if (o.scale_factor()) out.scale_factor = *o.scale_factor();
  out.mode = torch::detail::enum_spelling(o.mode());
  out.align_corners = o.align_corners();
  out.recompute_scale_factor = o.recompute_scale_factor();
  return out;
}

std::vector<int64_t> adaptive_output_size(const ember::Tensor& input,
                                          const ExpandingArrayWithOptionalElem<2>& output_size) {
  EMBER_CHECK(input.dim() >= 2, "adaptive_pool2d", "expected a 3-D or 4-D input, got ", input.dim(),
              " dims");
  std::vector<int64_t> sizes(2);
  for (size_t i = 0; i < 2; ++i) {
    const auto& size = output_size->at(i);
    sizes[i] = size ? *size : input.size(input.dim() - 2 + static_cast<int64_t>(i));
  }
  return sizes;
}

}  // namespace torch::nn::functional::detail
