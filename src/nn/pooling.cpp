// Pooling modules: torch/nn/modules/pooling.py (1.13) over nn::functional.
#include "ember/nn/layers/pooling.h"

#include "ember/nn/functional.h"
#include "ember/nn/layers/activation.h"

namespace ember::nn {

namespace detail {
std::string python_int_or_tuple(const functional::IntOrList& v) {
  // A list of one element can only come from a tuple; both print the way PyTorch stores them.
  return v.values().size() == 1 ? std::to_string(v.values()[0]) : python_tuple(v.values());
}
}  // namespace detail

MaxPoolImplBase::MaxPoolImplBase(functional::IntOrList kernel_size, MaxPoolOptions options)
    : kernel_size(std::move(kernel_size)), options(std::move(options)) {
  EMBER_CHECK(!this->kernel_size.empty(), "MaxPool", "kernel_size must be given");
  // As PyTorch: `stride = stride if stride is not None else kernel_size`, which repr shows.
  if (this->options.stride.empty()) this->options.stride = this->kernel_size;
}

std::string MaxPoolImplBase::extra_repr() const {
  using detail::python_int_or_tuple;
  return "kernel_size=" + python_int_or_tuple(kernel_size) +
         ", stride=" + python_int_or_tuple(options.stride) +
         ", padding=" + python_int_or_tuple(options.padding) +
         ", dilation=" + python_int_or_tuple(options.dilation) +
         ", ceil_mode=" + detail::python_bool(options.ceil_mode);
}

Tensor MaxPool1dImpl::forward(const Tensor& input) {
  return functional::max_pool1d(input, kernel_size, func_options());
}
std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, kernel_size, func_options());
}
Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return functional::max_pool2d(input, kernel_size, func_options());
}
std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, kernel_size, func_options());
}

AvgPool2dImpl::AvgPool2dImpl(functional::IntOrList kernel_size, AvgPoolOptions options)
    : kernel_size(std::move(kernel_size)), options(std::move(options)) {
  EMBER_CHECK(!this->kernel_size.empty(), "AvgPool2d", "kernel_size must be given");
  if (this->options.stride.empty()) this->options.stride = this->kernel_size;
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return functional::avg_pool2d(input, kernel_size,
                                {.stride = options.stride, .padding = options.padding,
                                 .ceil_mode = options.ceil_mode,
                                 .count_include_pad = options.count_include_pad,
                                 .divisor_override = options.divisor_override});
}

std::string AvgPool2dImpl::extra_repr() const {
  using detail::python_int_or_tuple;
  return "kernel_size=" + python_int_or_tuple(kernel_size) +
         ", stride=" + python_int_or_tuple(options.stride) +
         ", padding=" + python_int_or_tuple(options.padding);
}

std::string AdaptiveAvgPool2dImpl::extra_repr() const {
  return "output_size=" + detail::python_int_or_tuple(output_size);
}

}  // namespace ember::nn
