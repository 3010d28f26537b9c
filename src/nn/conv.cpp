// Conv1d/Conv2d/Conv3d/ConvTranspose2d modules: torch/nn/modules/conv.py (1.13) over
// nn::functional. reset_parameters is _ConvNd's: kaiming_uniform_(a = √5) on the weight (a bound of
// 1/√fan_in), then U(±1/√fan_in) on the bias, fan_in taken from the weight as laid out (so a
// transposed convolution's fan_in counts its out_channels / groups).
#include "ember/nn/layers/conv.h"

#include <cmath>

#include "ember/creation.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/layers/activation.h"

namespace ember::nn {

namespace {

// An int-or-list argument as `dims` sizes (PyTorch's _single/_pair).
std::vector<int64_t> expand(const functional::IntOrList& v, int64_t dims, const char* op,
                            const char* what) {
  const auto& vals = v.values();
  EMBER_CHECK(vals.size() == 1 || int64_t(vals.size()) == dims, op, what, " must be one int or ",
              dims, " ints, got ", vals.size());
  return vals.size() == 1 ? std::vector<int64_t>(dims, vals[0]) : vals;
}

}  // namespace

ConvImplBase::ConvImplBase(const char* op, int64_t dims, bool transposed, int64_t in_channels,
                           int64_t out_channels, const functional::IntOrList& kernel_size,
                           const functional::IntOrList& stride,
                           const functional::ConvPadding& padding,
                           const functional::IntOrList& output_padding,
                           const functional::IntOrList& dilation, int64_t groups, bool bias,
                           std::string padding_mode)
    : in_channels(in_channels), out_channels(out_channels),
      kernel_size(expand(kernel_size, dims, op, "kernel_size")),
      stride(expand(stride, dims, op, "stride")),
      dilation(expand(dilation, dims, op, "dilation")),
      output_padding(expand(output_padding, dims, op, "output_padding")),
      padding_string(padding.mode()), groups(groups), padding_mode(std::move(padding_mode)) {
  EMBER_CHECK(groups > 0, op, "groups must be a positive integer, got ", groups);
  EMBER_CHECK(in_channels % groups == 0, op, "in_channels must be divisible by groups, got ",
              in_channels, " and ", groups);
  EMBER_CHECK(out_channels % groups == 0, op, "out_channels must be divisible by groups, got ",
              out_channels, " and ", groups);
  const std::string& pm = this->padding_mode;
  EMBER_CHECK(pm == "zeros" || pm == "reflect" || pm == "replicate" || pm == "circular", op,
              "padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', but "
              "got padding_mode='", pm, "'");
  EMBER_CHECK(!transposed || pm == "zeros", op, "Only \"zeros\" padding mode is supported for ",
              op);
  if (!padding_string.empty()) {
    EMBER_CHECK(padding_string == "same" || padding_string == "valid", op,
                "Invalid padding string '", padding_string,
                "', should be one of {'valid', 'same'}");
    for (int64_t s : this->stride)
      EMBER_CHECK(padding_string != "same" || s == 1, op,
                  "padding='same' is not supported for strided convolutions");
    // The explicit amounts "same" stands for: d (k - 1) in total, the smaller half first.
    this->padding.assign(dims, 0);
    reversed_padding_twice_.assign(2 * dims, 0);
    if (padding_string == "same") {
      for (int64_t d = 0; d < dims; ++d) {
        const int64_t total = this->dilation[d] * (this->kernel_size[d] - 1);
        const int64_t left = total / 2;
        reversed_padding_twice_[2 * (dims - 1 - d)] = left;
        reversed_padding_twice_[2 * (dims - 1 - d) + 1] = total - left;
      }
    }
  } else {
    this->padding = expand(padding, dims, op, "padding");
    for (int64_t d = 0; d < dims; ++d)
      reversed_padding_twice_.insert(reversed_padding_twice_.end(), 2, this->padding[dims - 1 - d]);
  }
  std::vector<int64_t> wshape = transposed
                                    ? std::vector<int64_t>{in_channels, out_channels / groups}
                                    : std::vector<int64_t>{out_channels, in_channels / groups};
  wshape.insert(wshape.end(), this->kernel_size.begin(), this->kernel_size.end());
  weight = register_parameter("weight", ember::empty(wshape));
  this->bias = register_parameter("bias", bias ? empty({out_channels}) : Tensor());
  reset_parameters();
}

void ConvImplBase::reset_parameters() {
  init::kaiming_uniform_(weight, {.a = std::sqrt(5.0)});
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1 / std::sqrt(double(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor ConvImplBase::pad_input(const Tensor& input) const {
  if (padding_mode == "zeros") return input;
  return functional::pad(input, reversed_padding_twice_, {.mode = padding_mode});
}

functional::ConvFuncOptions ConvImplBase::func_options() const {
  functional::ConvFuncOptions o{.bias = bias, .stride = stride, .dilation = dilation,
                                .groups = groups};
  if (padding_mode != "zeros")
    o.padding = 0;  // pad_input did it
  else if (!padding_string.empty())
    o.padding = padding_string;
  else
    o.padding = padding;
  return o;
}

std::string ConvImplBase::extra_repr() const {
  using detail::python_tuple;
  const std::vector<int64_t> zeros_(kernel_size.size(), 0), ones_(kernel_size.size(), 1);
  std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                  ", kernel_size=" + python_tuple(kernel_size) + ", stride=" + python_tuple(stride);
  if (!padding_string.empty())
    s += ", padding=" + padding_string;
  else if (padding != zeros_)
    s += ", padding=" + python_tuple(padding);
  if (dilation != ones_) s += ", dilation=" + python_tuple(dilation);
  if (output_padding != zeros_) s += ", output_padding=" + python_tuple(output_padding);
  if (groups != 1) s += ", groups=" + std::to_string(groups);
  if (!bias.defined()) s += ", bias=False";
  if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
  return s;
}

Conv1dImpl::Conv1dImpl(int64_t in_channels, int64_t out_channels,
                       functional::IntOrList kernel_size, ConvOptions o)
    : ConvImplBase("Conv1d", 1, false, in_channels, out_channels, kernel_size, o.stride,
                   o.padding, 0, o.dilation, o.groups, o.bias, std::move(o.padding_mode)) {}

Tensor Conv1dImpl::forward(const Tensor& input) {
  return functional::conv1d(pad_input(input), weight, func_options());
}

Conv2dImpl::Conv2dImpl(int64_t in_channels, int64_t out_channels,
                       functional::IntOrList kernel_size, ConvOptions o)
    : ConvImplBase("Conv2d", 2, false, in_channels, out_channels, kernel_size, o.stride,
                   o.padding, 0, o.dilation, o.groups, o.bias, std::move(o.padding_mode)) {}

Tensor Conv2dImpl::forward(const Tensor& input) {
  return functional::conv2d(pad_input(input), weight, func_options());
}

Conv3dImpl::Conv3dImpl(int64_t in_channels, int64_t out_channels, functional::IntOrList kernel_size,
                       ConvOptions o)
    : ConvImplBase("Conv3d", 3, false, in_channels, out_channels, kernel_size, o.stride, o.padding,
                   0, o.dilation, o.groups, o.bias, std::move(o.padding_mode)) {}

Tensor Conv3dImpl::forward(const Tensor& input) {
  return functional::conv3d(pad_input(input), weight, func_options());
}

ConvTranspose2dImpl::ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels,
                                         functional::IntOrList kernel_size,
                                         ConvTransposeOptions o)
    : ConvImplBase("ConvTranspose2d", 2, true, in_channels, out_channels, kernel_size, o.stride,
                   o.padding.values(), o.output_padding, o.dilation, o.groups, o.bias,
                   std::move(o.padding_mode)) {}

Tensor ConvTranspose2dImpl::forward(const Tensor& input, std::vector<int64_t> output_size) {
  std::vector<int64_t> out_pad = output_padding;
  if (!output_size.empty()) {
    // PyTorch's _output_padding: the extra rows/columns that reach the requested size.
    const int64_t k = 2;
    if (int64_t(output_size.size()) == k + 2) output_size.erase(output_size.begin(), output_size.begin() + 2);
    EMBER_CHECK(int64_t(output_size.size()) == k, "ConvTranspose2d",
                "output_size must have 2 or 4 elements (got ", output_size.size(), ")");
    EMBER_CHECK(input.dim() >= k, "ConvTranspose2d", "expected a 3D or 4D input, got ",
                input.dim(), "D");
    for (int64_t d = 0; d < k; ++d) {
      const int64_t in = input.size(input.dim() - k + d);
      const int64_t min_size = (in - 1) * stride[d] - 2 * padding[d] +
                               dilation[d] * (kernel_size[d] - 1) + 1;
      const int64_t max_size = min_size + stride[d] - 1;
      EMBER_CHECK(output_size[d] >= min_size && output_size[d] <= max_size, "ConvTranspose2d",
                  "requested an output size of ", output_size[d], " in dim ", d,
                  ", but valid sizes range from ", min_size, " to ", max_size,
                  " (for an input of ", in, ")");
      out_pad[d] = output_size[d] - min_size;
    }
  }
  return functional::conv_transpose2d(input, weight,
                                      {.bias = bias, .stride = stride, .padding = padding,
                                       .output_padding = out_pad, .groups = groups,
                                       .dilation = dilation});
}

}  // namespace ember::nn
