// conv3d: torch.nn.functional.conv3d as kD batched conv2d calls, one per depth tap of the
// kernel. Tap kd reads the depth planes kd·dilation + i·stride (i < D_out); folding those planes
// into the batch, (N, C, D_out, H, W) -> (N·D_out, C, H, W), turns each tap into one conv2d
// with the weight's kd-th (kH, kW) slice, so height and width keep conv2d's kernels (im2col +
// GEMM, Winograd) and its backward, and the taps' sum is the 3-D convolution. Depth padding is
// applied as zeros beforehand; "same" pads as PyTorch does (the extra element on the right).
#include <array>

#include "ember/error.h"
#include "ember/math.h"
#include "ember/nn/functional/conv.h"
#include "ember/shape.h"

namespace ember::nn::functional {
namespace {

std::array<int64_t, 3> per_dim(const IntOrList& v, const char* what) {
  const std::vector<int64_t>& values = v.values();
  EMBER_CHECK(values.size() == 1 || values.size() == 3, "conv3d", what,
              " must be one int or 3 ints, got ", values.size());
  return values.size() == 1 ? std::array<int64_t, 3>{values[0], values[0], values[0]}
                            : std::array<int64_t, 3>{values[0], values[1], values[2]};
}

}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& o) {
  const char* op = "conv3d";
  EMBER_CHECK(weight.dim() == 5, op, "Expected 5-dimensional weight for 5-dimensional input, ",
              "but got weight of size ", weight.sizes());
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, op, "Expected 4D (unbatched) or 5D ",
              "(batched) input to conv3d, but got input of size: ", input.sizes());
  const bool batched = input.dim() == 5;
  Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t groups = o.groups;
  EMBER_CHECK(groups > 0, op, "non-positive groups is not supported");
  EMBER_CHECK(x.size(1) == weight.size(1) * groups, op, "Given groups=", groups, ", weight of ",
              "size ", weight.sizes(), ", expected input", x.sizes(), " to have ",
              weight.size(1) * groups, " channels, but got ", x.size(1), " channels instead");
  EMBER_CHECK(!o.bias.defined() || (o.bias.dim() == 1 && o.bias.size(0) == weight.size(0)), op,
              "Given weight of size ", weight.sizes(), ", expected bias to be 1-dimensional with ",
              weight.size(0), " elements, but got bias of size ",
              o.bias.defined() ? o.bias.sizes() : IntArrayRef());
  const auto stride = per_dim(o.stride, "stride"), dilation = per_dim(o.dilation, "dilation");
  const std::array<int64_t, 3> kernel{weight.size(2), weight.size(3), weight.size(4)};
  for (int d = 0; d < 3; ++d)
    EMBER_CHECK(stride[d] > 0 && dilation[d] > 0, op, "stride and dilation must be positive");
  // (left, right) padding per spatial dim.
  std::array<std::array<int64_t, 2>, 3> pad{};
  const std::string& mode = o.padding.mode();
  if (mode.empty()) {
    const auto p = per_dim(o.padding, "padding");
    for (int d = 0; d < 3; ++d) {
      EMBER_CHECK(p[d] >= 0, op, "negative padding is not supported");
      pad[d] = {p[d], p[d]};
    }
  } else {
    EMBER_CHECK(mode == "same" || mode == "valid", op, "Invalid padding string '", mode,
                "', should be one of {'valid', 'same'}");
    for (int d = 0; d < 3 && mode == "same"; ++d) {
      EMBER_CHECK(stride[d] == 1, op, "padding='same' is not supported for strided convolutions");
      const int64_t total = dilation[d] * (kernel[d] - 1);
      pad[d] = {total / 2, total - total / 2};
    }
  }
  // Depth padding, and whatever of H/W's is uneven, as explicit zeros; conv2d pads the rest.
  std::vector<int64_t> explicit_pad{
      0, pad[2][1] - pad[2][0], 0, pad[1][1] - pad[1][0], pad[0][0], pad[0][1]};
  if (explicit_pad != std::vector<int64_t>(6, 0)) x = functional::pad(x, explicit_pad);
  const int64_t N = x.size(0), C = x.size(1), D = x.size(2), H = x.size(3), W = x.size(4);
  const int64_t span = dilation[0] * (kernel[0] - 1) + 1;
  EMBER_CHECK(D >= span, op, "Calculated padded input size per channel: (", D, " x ",
              H + pad[1][0] * 2, " x ", W + pad[2][0] * 2, "). Kernel size: (", kernel[0], " x ",
              kernel[1], " x ", kernel[2],
              "). Kernel size can't be greater than actual input size");
  const int64_t d_out = (D - span) / stride[0] + 1;
  ConvFuncOptions plane{.stride = {stride[1], stride[2]},
                        .padding = {pad[1][0], pad[2][0]},
                        .dilation = {dilation[1], dilation[2]},
                        .groups = groups};
  Tensor out;
  for (int64_t kd = 0; kd < kernel[0]; ++kd) {
    const int64_t first = kd * dilation[0];
    const Tensor taps = x.slice(2, first, first + (d_out - 1) * stride[0] + 1, stride[0]);
    const Tensor planes = taps.permute({0, 2, 1, 3, 4}).reshape({N * d_out, C, H, W});
    // The first tap adds the bias; the others accumulate into its result (add's backward needs
    // no saved values, so the in-place sum is safe under autograd).
    plane.bias = kd == 0 ? o.bias : Tensor();
    const Tensor part = conv2d(planes, weight.select(2, kd), plane);
    if (kd == 0)
      out = part;
    else
      out.add_(part);
  }
  const int64_t c_out = weight.size(0), h_out = out.size(2), w_out = out.size(3);
  out = out.reshape({N, d_out, c_out, h_out, w_out}).permute({0, 2, 1, 3, 4}).contiguous();
  return batched ? out : out.squeeze(0);
}

}  // namespace ember::nn::functional
