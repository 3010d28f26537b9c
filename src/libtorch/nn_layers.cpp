// torch::nn's layers over ember's: option conversions, the checks ember's layers lack, and
// LibTorch's descriptions of the layers (what `std::cout << module` shows).
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/generator.h"
#include "torch/nn/modules/activation.h"
#include "torch/nn/modules/batchnorm.h"
#include "torch/nn/modules/conv.h"
#include "torch/nn/modules/dropout.h"
#include "torch/nn/modules/embedding.h"
#include "torch/nn/modules/instancenorm.h"
#include "torch/nn/modules/linear.h"
#include "torch/nn/modules/normalization.h"
#include "torch/nn/modules/upsampling.h"

namespace torch::nn {

namespace {

/// "[4, 5]": a list as LibTorch prints sizes and factors.
template <class T>
std::string bracketed(const std::vector<T>& values) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  s << ']';
  return s.str();
}

}  // namespace

// ── linear ────────────────────────────────────────────────────────────────
std::string LinearImpl::extra_repr() const {
  std::ostringstream s;
  s << "in_features=" << options.in_features() << ", out_features=" << options.out_features()
    << ", bias=" << detail::bool_string(options.bias());
  return s.str();
}

std::string BilinearImpl::extra_repr() const {
  std::ostringstream s;
  s << "in1_features=" << options.in1_features() << ", in2_features=" << options.in2_features()
    << ", out_features=" << options.out_features()
    << ", bias=" << detail::bool_string(options.bias());
  return s.str();
}

std::string FlattenImpl::extra_repr() const {
  std::ostringstream s;
  s << "start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim();
  return s.str();
}

namespace {
const UnflattenOptions& unnamed(const UnflattenOptions& options) {
  if (!options.dimname().empty())
    ember::fail("Unflatten", "named dimensions (dimname '", options.dimname(),
                "') are not supported: ember has no named tensors; give a dim and sizes");
  return options;
}
}  // namespace

UnflattenImpl::UnflattenImpl(UnflattenOptions options_)
    : ember::nn::UnflattenImpl(unnamed(options_).dim(), options_.sizes()),
      options(std::move(options_)) {}

std::string UnflattenImpl::extra_repr() const {
  std::ostringstream s;
  s << "dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) s << (i ? ", " : "") << options.sizes()[i];
  s << '}';
  return s.str();
}

// ── convolution ───────────────────────────────────────────────────────────
namespace detail {

namespace {
template <size_t D>
ember::nn::ConvOptions conv_options_of(const ConvOptions<D>& o) {
  return {.stride = o.stride().vec(),
          .padding = functional::detail::conv_padding<D>(o.padding()),
          .dilation = o.dilation().vec(),
          .groups = o.groups(),
          .bias = o.bias(),
          .padding_mode = torch::detail::enum_spelling(o.padding_mode())};
}

/// The parts LibTorch shows after the kernel size and stride, when not at their defaults.
template <size_t D>
void describe_common(std::ostringstream& s, const ExpandingArray<D>& dilation, int64_t groups,
                     bool bias, const conv_padding_mode_t& padding_mode,
                     const ExpandingArray<D>* output_padding) {
  if (*dilation != *ExpandingArray<D>(1)) s << ", dilation=" << dilation;
  if (output_padding && **output_padding != *ExpandingArray<D>(0))
    s << ", output_padding=" << *output_padding;
  if (groups != 1) s << ", groups=" << groups;
  if (!bias) s << ", bias=false";
  if (!std::holds_alternative<enumtype::kZeros>(padding_mode))
    s << ", padding_mode=" << enumtype::get_enum_name(padding_mode);
}
}  // namespace

ember::nn::ConvOptions conv_options(const ConvOptions<1>& options) {
  return conv_options_of(options);
}
ember::nn::ConvOptions conv_options(const ConvOptions<2>& options) {
  return conv_options_of(options);
}
ember::nn::ConvOptions conv_options(const ConvOptions<3>& options) {
  return conv_options_of(options);
}

ember::nn::ConvTransposeOptions conv_transpose_options(const ConvTransposeOptions<2>& o) {
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode()))
    ember::fail("ConvTranspose2d",
                "Only \"zeros\" padding mode is supported for ConvTranspose2d, got ",
                enumtype::get_enum_name(o.padding_mode()));
  return {.stride = o.stride().vec(),
          .padding = o.padding().vec(),
          .output_padding = o.output_padding().vec(),
          .groups = o.groups(),
          .bias = o.bias(),
          .dilation = o.dilation().vec()};
}

template <size_t D>
std::string conv_description(const ConvOptions<D>& o) {
  std::ostringstream s;
  s << o.in_channels() << ", " << o.out_channels() << ", kernel_size=" << o.kernel_size()
    << ", stride=" << o.stride();
  if (std::holds_alternative<enumtype::kValid>(o.padding())) {
    s << ", padding='valid'";
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    s << ", padding='same'";
  } else if (const auto& padding = std::get<ExpandingArray<D>>(o.padding());
             *padding != *ExpandingArray<D>(0)) {
    s << ", padding=" << padding;
  }
  describe_common<D>(s, o.dilation(), o.groups(), o.bias(), o.padding_mode(), nullptr);
  return s.str();
}

template <size_t D>
std::string conv_description(const ConvTransposeOptions<D>& o) {
  std::ostringstream s;
  s << o.in_channels() << ", " << o.out_channels() << ", kernel_size=" << o.kernel_size()
    << ", stride=" << o.stride();
  if (*o.padding() != *ExpandingArray<D>(0)) s << ", padding=" << o.padding();
  describe_common<D>(s, o.dilation(), o.groups(), o.bias(), o.padding_mode(), &o.output_padding());
  return s.str();
}

template std::string conv_description(const ConvOptions<1>&);
template std::string conv_description(const ConvOptions<2>&);
template std::string conv_description(const ConvOptions<3>&);
template std::string conv_description(const ConvTransposeOptions<2>&);

// ── activations ───────────────────────────────────────────────────────────
namespace {
std::string inplace_suffix(bool inplace, bool first) {
  if (!inplace) return {};
  return first ? "inplace=true" : ", inplace=true";
}
}  // namespace

std::string activation_description(const ReLUOptions& o) {
  return inplace_suffix(o.inplace(), true);
}
std::string activation_description(const ReLU6Options& o) {
  return inplace_suffix(o.inplace(), true);
}
std::string activation_description(const LeakyReLUOptions& o) {
  std::ostringstream s;
  s << "negative_slope=" << o.negative_slope() << inplace_suffix(o.inplace(), false);
  return s.str();
}
std::string activation_description(const ELUOptions& o) {
  std::ostringstream s;
  s << "alpha=" << o.alpha() << inplace_suffix(o.inplace(), false);
  return s.str();
}
std::string activation_description(const GELUOptions&) { return {}; }
std::string activation_description(const SoftplusOptions& o) {
  std::ostringstream s;
  s << "beta=" << o.beta() << ", threshold=" << o.threshold();
  return s.str();
}

// ── normalisation and dropout ─────────────────────────────────────────────
ember::nn::BatchNormOptions batch_norm_options(const BatchNormOptions& o) {
  return {.eps = o.eps(),
          .momentum = o.momentum(),
          .affine = o.affine(),
          .track_running_stats = o.track_running_stats()};
}

std::string batch_norm_description(const BatchNormOptions& o) {
  std::ostringstream s;
  s << o.num_features() << ", eps=" << o.eps() << ", momentum=";
  if (o.momentum())
    s << *o.momentum();
  else
    s << "None";
  s << ", affine=" << bool_string(o.affine())
    << ", track_running_stats=" << bool_string(o.track_running_stats());
  return s.str();
}

std::string instance_norm_description(const InstanceNormOptions& o) {
  std::ostringstream s;
  s << o.num_features() << ", eps=" << o.eps() << ", momentum=" << o.momentum()
    << ", affine=" << bool_string(o.affine())
    << ", track_running_stats=" << bool_string(o.track_running_stats());
  return s.str();
}

std::string dropout_description(const DropoutOptions& o) {
  std::ostringstream s;
  s << "p=" << o.p() << ", inplace=" << bool_string(o.inplace());
  return s.str();
}

}  // namespace detail

std::string LayerNormImpl::extra_repr() const {
  std::ostringstream s;
  s << bracketed(options.normalized_shape()) << ", eps=" << options.eps()
    << ", elementwise_affine=" << detail::bool_string(options.elementwise_affine());
  return s.str();
}

std::string GroupNormImpl::extra_repr() const {
  std::ostringstream s;
  s << options.num_groups() << ", " << options.num_channels() << ", eps=" << options.eps()
    << ", affine=" << detail::bool_string(options.affine());
  return s.str();
}

// ── embedding ─────────────────────────────────────────────────────────────
EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_)
    : EmbeddingImpl(options_, options_._weight().defined()
                                  ? std::optional(ember::default_generator().get_state())
                                  : std::nullopt) {}

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& options_,
                             std::optional<std::vector<uint8_t>> rng_state)
    : ember::nn::EmbeddingImpl(options_.num_embeddings(), options_.embedding_dim(),
                               {.padding_idx = options_.padding_idx(),
                                .max_norm = options_.max_norm(),
                                .norm_type = options_.norm_type(),
                                .scale_grad_by_freq = options_.scale_grad_by_freq(),
                                .sparse = options_.sparse()}),
      options(options_) {
  if (!rng_state) return;
  // A given weight replaces the draw: put the generator back as if none had been made.
  ember::default_generator().set_state(*rng_state);
  const ember::Tensor& given = options._weight();
  if (given.sizes() != ember::IntArrayRef({options.num_embeddings(), options.embedding_dim()}))
    ember::fail("Embedding",
                "Shape of _weight does not match num_embeddings and embedding_dim: ", "expected [",
                options.num_embeddings(), ", ", options.embedding_dim(), "], got ", given.sizes());
  ember::NoGradGuard no_grad;
  weight.copy_(given);
}

std::string EmbeddingImpl::extra_repr() const {
  std::ostringstream s;
  s << "num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) s << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) s << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) s << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) s << ", scale_grad_by_freq=true";
  if (options.sparse()) s << ", sparse=true";
  return s.str();
}

Embedding Embedding::from_pretrained(const ember::Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  if (embeddings.dim() != 2)
    ember::fail("Embedding::from_pretrained",
                "Embeddings parameter is expected to be 2-dimensional, got ", embeddings.dim(),
                " dims");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.requires_grad_(!options.freeze());
  return embedding;
}

// ── upsampling ────────────────────────────────────────────────────────────
namespace detail {

ember::nn::UpsampleOptions upsample_options(const UpsampleOptions& o) {
  ember::nn::UpsampleOptions out;
  if (o.size()) out.size = *o.size();
  if (o.scale_factor()) out.scale_factor = *o.scale_factor();
  out.mode = torch::detail::enum_spelling(o.mode());
  out.align_corners = o.align_corners();
  return out;
}

std::string upsample_description(const UpsampleOptions& o) {
  std::string out = o.scale_factor()
                        ? "scale_factor=" + bracketed(*o.scale_factor())
                        : "size=" + bracketed(o.size().value_or(std::vector<int64_t>{}));
  return out + ", mode=" + enumtype::get_enum_name(o.mode());
}

}  // namespace detail
}  // namespace torch::nn
