// torch::nn's recurrent layers: LibTorch's descriptions and its flat list of weights.
#include <sstream>
#include <string>
#include <vector>

#include "torch/nn/modules/rnn.h"

namespace torch::nn {

namespace detail {

std::vector<ember::Tensor> flat_weights(const ember::nn::RNNImplBase& layer) {
  std::vector<ember::Tensor> flat;
  for (const auto& cell : layer.cell_weights())
    for (const ember::Tensor& w : {cell.w_ih, cell.w_hh, cell.b_ih, cell.b_hh, cell.w_hr})
      if (w.defined()) flat.push_back(w);
  return flat;
}

std::string recurrent_repr(const ember::nn::RNNImplBase& layer) {
  std::ostringstream s;
  s << "input_size=" << layer.input_size << ", hidden_size=" << layer.hidden_size
    << ", num_layers=" << layer.num_layers << ", bias=" << bool_string(layer.bias)
    << ", batch_first=" << bool_string(layer.batch_first) << ", dropout=" << layer.dropout
    << ", bidirectional=" << bool_string(layer.bidirectional);
  if (layer.proj_size > 0) s << ", proj_size=" << layer.proj_size;
  return s.str();
}

namespace {
/// "4, 6" and ", bias=false" when there are no biases: how LibTorch describes a cell.
std::string cell_repr(const ember::nn::RNNCellImplBase& cell) {
  std::ostringstream s;
  s << cell.input_size << ", " << cell.hidden_size;
  if (!cell.bias) s << ", bias=false";
  return s.str();
}
}  // namespace

}  // namespace detail

std::string RNNCellImpl::extra_repr() const {
  std::string s = detail::cell_repr(*this);
  if (!std::holds_alternative<enumtype::kTanh>(options.nonlinearity()))
    s += ", nonlinearity=" + torch::enumtype::get_enum_name(options.nonlinearity());
  return s;
}

std::string LSTMCellImpl::extra_repr() const { return detail::cell_repr(*this); }

std::string GRUCellImpl::extra_repr() const { return detail::cell_repr(*this); }

}  // namespace torch::nn
