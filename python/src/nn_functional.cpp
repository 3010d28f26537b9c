// torch.nn.functional's C++-backed functions (ember._C._nn): convolutions, pooling, normalization,
// dropout, embedding, attention and losses with PyTorch's Python signatures, over the C++
// functional ops (include/ember/nn/functional). python/ember/nn/functional.py re-exports them
// next to the activations, which are tensor ops.
#include "common.h"

namespace ember::python {
namespace {

namespace F = nn::functional;

Tensor optional_tensor(py::handle h, const char* op, const char* arg) {
  return h.is_none() ? Tensor() : to_tensor(h, op, arg);
}

F::IntOrList int_or_list(py::handle h, const char* op, const char* arg) {
  if (h.is_none()) return {};
  return F::IntOrList(to_int_list(h, op, arg));
}

// The reduction argument with PyTorch's legacy size_average/reduce folded in.
std::string reduction(const std::string& r, py::handle size_average, py::handle reduce) {
  if (size_average.is_none() && reduce.is_none()) return r;
  bool avg = size_average.is_none() || size_average.cast<bool>();
  bool red = reduce.is_none() || reduce.cast<bool>();
  return !red ? "none" : avg ? "mean" : "sum";
}

Generator* generator_of(py::handle g) { return g.is_none() ? nullptr : g.cast<Generator*>(); }

}  // namespace

void bind_nn_functional(py::module_& parent) {
  py::module_ m = parent.def_submodule("_nn", "torch.nn.functional's C++ functions");
  m.def(
      "linear",
      [](const Tensor& x, const Tensor& w, py::handle b) {
        return without_gil(
            work_product(x.numel(), w.dim() ? w.size(0) : 1),
            [&, bias = optional_tensor(b, "linear", "bias")] { return F::linear(x, w, bias); });
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  for (int dims : {1, 2, 3}) {
    static const char* const kConvNames[] = {"conv1d", "conv2d", "conv3d"};
    m.def(
        kConvNames[dims - 1],
        [dims](const Tensor& x, const Tensor& w, py::handle b, py::handle stride,
               py::handle padding, py::handle dilation, int64_t groups) {
          F::ConvFuncOptions o;
          o.bias = optional_tensor(b, "conv", "bias");
          o.stride = int_or_list(stride, "conv", "stride");
          if (PyUnicode_Check(padding.ptr()))
            o.padding = F::ConvPadding(padding.cast<std::string>());
          else
            o.padding = F::ConvPadding(to_int_list(padding, "conv", "padding"));
          o.dilation = int_or_list(dilation, "conv", "dilation");
          o.groups = groups;
          return without_gil(work_product(x.numel(), w.numel()), [&] {
            return dims == 1   ? F::conv1d(x, w, o)
                   : dims == 2 ? F::conv2d(x, w, o)
                               : F::conv3d(x, w, o);
          });
        },
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1);
    if (dims == 3) continue;  // no conv_transpose3d
    m.def(
        dims == 1 ? "conv_transpose1d" : "conv_transpose2d",
        [dims](const Tensor& x, const Tensor& w, py::handle b, py::handle stride,
               py::handle padding, py::handle output_padding, int64_t groups, py::handle dilation) {
          F::ConvTransposeFuncOptions o;
          o.bias = optional_tensor(b, "conv_transpose", "bias");
          o.stride = int_or_list(stride, "conv_transpose", "stride");
          o.padding = int_or_list(padding, "conv_transpose", "padding");
          o.output_padding = int_or_list(output_padding, "conv_transpose", "output_padding");
          o.groups = groups;
          o.dilation = int_or_list(dilation, "conv_transpose", "dilation");
          return without_gil(work_product(x.numel(), w.numel()), [&] {
            return dims == 1 ? F::conv_transpose1d(x, w, o) : F::conv_transpose2d(x, w, o);
          });
        },
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
        py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1,
        py::arg("dilation") = 1);
    m.def(
        dims == 1 ? "max_pool1d_with_indices" : "max_pool2d_with_indices",
        [dims](const Tensor& x, py::handle k, py::handle stride, py::handle padding,
               py::handle dilation, bool ceil_mode) {
          F::MaxPoolFuncOptions o{.stride = int_or_list(stride, "max_pool", "stride"),
                                  .padding = int_or_list(padding, "max_pool", "padding"),
                                  .dilation = int_or_list(dilation, "max_pool", "dilation"),
                                  .ceil_mode = ceil_mode};
          F::IntOrList ks = int_or_list(k, "max_pool", "kernel_size");
          return without_gil(x.numel(), [&] {
            return dims == 1 ? F::max_pool1d_with_indices(x, ks, o)
                             : F::max_pool2d_with_indices(x, ks, o);
          });
        },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false);
    m.def(
        dims == 1 ? "avg_pool1d" : "avg_pool2d",
        [dims](const Tensor& x, py::handle k, py::handle stride, py::handle padding, bool ceil_mode,
               bool count_include_pad, std::optional<int64_t> divisor_override) {
          F::AvgPoolFuncOptions o{.stride = int_or_list(stride, "avg_pool", "stride"),
                                  .padding = int_or_list(padding, "avg_pool", "padding"),
                                  .ceil_mode = ceil_mode,
                                  .count_include_pad = count_include_pad,
                                  .divisor_override = divisor_override};
          F::IntOrList ks = int_or_list(k, "avg_pool", "kernel_size");
          return without_gil(x.numel(), [&] {
            return dims == 1 ? F::avg_pool1d(x, ks, o) : F::avg_pool2d(x, ks, o);
          });
        },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(),
        py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
        py::arg("divisor_override") = py::none());
    m.def(
        dims == 1 ? "adaptive_avg_pool1d" : "adaptive_avg_pool2d",
        [dims](const Tensor& x, py::handle size) {
          F::IntOrList s = int_or_list(size, "adaptive_avg_pool", "output_size");
          return dims == 1 ? F::adaptive_avg_pool1d(x, s) : F::adaptive_avg_pool2d(x, s);
        },
        py::arg("input"), py::arg("output_size"));
    m.def(
        dims == 1 ? "adaptive_max_pool1d_with_indices" : "adaptive_max_pool2d_with_indices",
        [dims](const Tensor& x, py::handle size) {
          F::IntOrList s = int_or_list(size, "adaptive_max_pool", "output_size");
          return dims == 1 ? F::adaptive_max_pool1d_with_indices(x, s)
                           : F::adaptive_max_pool2d_with_indices(x, s);
        },
        py::arg("input"), py::arg("output_size"));
  }
  m.def(
      "batch_norm",
      [](const Tensor& x, py::handle running_mean, py::handle running_var, py::handle weight,
         py::handle bias, bool training, py::handle momentum, double eps) {
        F::BatchNormFuncOptions o;
        o.weight = optional_tensor(weight, "batch_norm", "weight");
        o.bias = optional_tensor(bias, "batch_norm", "bias");
        o.training = training;
        o.momentum =
            momentum.is_none() ? std::nullopt : std::optional<double>(momentum.cast<double>());
        o.eps = eps;
        Tensor rm = optional_tensor(running_mean, "batch_norm", "running_mean");
        Tensor rv = optional_tensor(running_var, "batch_norm", "running_var");
        return without_gil(x.numel(), [&] { return F::batch_norm(x, rm, rv, o); });
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"),
      py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("training") = false,
      py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def(
      "layer_norm",
      [](const Tensor& x, py::handle shape, py::handle weight, py::handle bias, double eps) {
        F::LayerNormFuncOptions o{.weight = optional_tensor(weight, "layer_norm", "weight"),
                                  .bias = optional_tensor(bias, "layer_norm", "bias"),
                                  .eps = eps};
        std::vector<int64_t> s = to_int_list(shape, "layer_norm", "normalized_shape");
        return without_gil(x.numel(), [&] { return F::layer_norm(x, s, o); });
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def(
      "group_norm",
      [](const Tensor& x, int64_t groups, py::handle weight, py::handle bias, double eps) {
        F::GroupNormFuncOptions o{.weight = optional_tensor(weight, "group_norm", "weight"),
                                  .bias = optional_tensor(bias, "group_norm", "bias"),
                                  .eps = eps};
        return without_gil(x.numel(), [&] { return F::group_norm(x, groups, o); });
      },
      py::arg("input"), py::arg("num_groups"), py::arg("weight") = py::none(),
      py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def(
      "instance_norm",
      [](const Tensor& x, py::handle running_mean, py::handle running_var, py::handle weight,
         py::handle bias, bool use_input_stats, double momentum, double eps) {
        const char* op = "instance_norm";
        F::InstanceNormFuncOptions o{
            .running_mean = optional_tensor(running_mean, op, "running_mean"),
            .running_var = optional_tensor(running_var, op, "running_var"),
            .weight = optional_tensor(weight, op, "weight"),
            .bias = optional_tensor(bias, op, "bias"),
            .use_input_stats = use_input_stats,
            .momentum = momentum,
            .eps = eps};
        return without_gil(x.numel(), [&] { return F::instance_norm(x, o); });
      },
      py::arg("input"), py::arg("running_mean") = py::none(), py::arg("running_var") = py::none(),
      py::arg("weight") = py::none(), py::arg("bias") = py::none(),
      py::arg("use_input_stats") = true, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def(
      "prelu", [](const Tensor& x, const Tensor& weight) { return F::prelu(x, weight); },
      py::arg("input"), py::arg("weight"));
  m.def(
      "rms_norm",
      [](const Tensor& x, py::handle shape, py::handle weight, std::optional<double> eps) {
        F::RMSNormFuncOptions o{.weight = optional_tensor(weight, "rms_norm", "weight"),
                                .eps = eps};
        std::vector<int64_t> s = to_int_list(shape, "rms_norm", "normalized_shape");
        return without_gil(x.numel(), [&] { return F::rms_norm(x, s, o); });
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
      py::arg("eps") = py::none());
  // SyncBatchNorm's training forward (not in torch.nn.functional: nn.SyncBatchNorm calls it).
  // group None is the default group. Always without the GIL: the all_reduce waits for peers.
  m.def(
      "sync_batch_norm",
      [](const Tensor& x, py::handle running_mean, py::handle running_var, py::handle weight,
         py::handle bias, double momentum, double eps, py::handle group) {
        F::BatchNormFuncOptions o;
        o.weight = optional_tensor(weight, "sync_batch_norm", "weight");
        o.bias = optional_tensor(bias, "sync_batch_norm", "bias");
        o.training = true;
        o.momentum = momentum;
        o.eps = eps;
        Tensor rm = optional_tensor(running_mean, "sync_batch_norm", "running_mean");
        Tensor rv = optional_tensor(running_var, "sync_batch_norm", "running_var");
        dist::ProcessGroup pg =
            group.is_none() ? dist::ProcessGroup() : group.cast<dist::ProcessGroup>();
        py::gil_scoped_release release;
        return F::sync_batch_norm(x, rm, rv, o, pg);
      },
      py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight"),
      py::arg("bias"), py::arg("momentum"), py::arg("eps"), py::arg("group") = py::none());
  using DropoutFn = Tensor (*)(const Tensor&, F::DropoutFuncOptions);
  static const std::pair<const char*, DropoutFn> dropouts[] = {{"dropout", F::dropout},
                                                               {"dropout1d", F::dropout1d},
                                                               {"dropout2d", F::dropout2d},
                                                               {"dropout3d", F::dropout3d}};
  for (auto [name, fn] : dropouts) {
    DropoutFn f = fn;
    m.def(
        name,
        [f](const Tensor& x, double p, bool training, bool inplace, py::handle generator) {
          if (p < 0 || p > 1)
            throw py::value_error("dropout probability has to be between 0 and 1, but got " +
                                  std::to_string(p));
          F::DropoutFuncOptions o{.p = p,
                                  .training = training,
                                  .inplace = inplace,
                                  .generator = generator_of(generator)};
          return without_gil(x.numel(), [&] { return f(x, o); });
        },
        py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true,
        py::arg("inplace") = false, py::kw_only(), py::arg("generator") = py::none());
  }
  m.def(
      "embedding",
      [](const Tensor& x, const Tensor& w, std::optional<int64_t> padding_idx,
         std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
        if (sparse)
          throw std::runtime_error("embedding(): sparse=True is not in ember (no sparse tensors)");
        F::EmbeddingFuncOptions o{.padding_idx = padding_idx,
                                  .max_norm = max_norm,
                                  .norm_type = norm_type,
                                  .scale_grad_by_freq = scale_grad_by_freq,
                                  .sparse = false};
        return F::embedding(x, w, o);
      },
      py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none(),
      py::arg("max_norm") = py::none(), py::arg("norm_type") = 2.0,
      py::arg("scale_grad_by_freq") = false, py::arg("sparse") = false);
  m.def(
      "scaled_dot_product_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, py::handle mask, double dropout_p,
         bool is_causal, std::optional<double> scale) {
        F::ScaledDotProductAttentionOptions o{
            .attn_mask = optional_tensor(mask, "scaled_dot_product_attention", "attn_mask"),
            .dropout_p = dropout_p,
            .is_causal = is_causal,
            .scale = scale};
        return without_gil(work_product(q.numel(), k.dim() ? k.size(-2) : 1),
                           [&] { return F::scaled_dot_product_attention(q, k, v, o); });
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(),
      py::arg("dropout_p") = 0.0, py::arg("is_causal") = false, py::kw_only(),
      py::arg("scale") = py::none());
  m.def(
      "cosine_similarity",
      [](const Tensor& a, const Tensor& b, int64_t dim, double eps) {
        return F::cosine_similarity(a, b, {.dim = dim, .eps = eps});
      },
      py::arg("x1"), py::arg("x2"), py::arg("dim") = 1, py::arg("eps") = 1e-8);
  m.def(
      "pairwise_distance",
      [](const Tensor& a, const Tensor& b, double p, double eps, bool keepdim) {
        return F::pairwise_distance(a, b, {.p = p, .eps = eps, .keepdim = keepdim});
      },
      py::arg("x1"), py::arg("x2"), py::arg("p") = 2.0, py::arg("eps") = 1e-6,
      py::arg("keepdim") = false);
  m.def(
      "pad",
      [](const Tensor& x, py::handle pad, const std::string& mode, std::optional<double> value) {
        return F::pad(x, to_int_list(pad, "pad", "pad"), {.mode = mode, .value = value});
      },
      py::arg("input"), py::arg("pad"), py::arg("mode") = "constant",
      py::arg("value") = py::none());
  m.def(
      "interpolate",
      [](const Tensor& x, py::handle size, py::handle scale_factor, const std::string& mode,
         std::optional<bool> align_corners, std::optional<bool> recompute_scale_factor) {
        F::InterpolateFuncOptions o;
        o.size = int_or_list(size, "interpolate", "size");
        if (!scale_factor.is_none()) {
          if (PyTuple_Check(scale_factor.ptr()) || PyList_Check(scale_factor.ptr()))
            o.scale_factor = F::DoubleOrList(scale_factor.cast<std::vector<double>>());
          else
            o.scale_factor = F::DoubleOrList(scale_factor.cast<double>());
        }
        o.mode = mode;
        o.align_corners = align_corners;
        o.recompute_scale_factor = recompute_scale_factor;
        return F::interpolate(x, o);
      },
      py::arg("input"), py::arg("size") = py::none(), py::arg("scale_factor") = py::none(),
      py::arg("mode") = "nearest", py::arg("align_corners") = py::none(),
      py::arg("recompute_scale_factor") = py::none());

  // ── losses ──
  m.def(
      "cross_entropy",
      [](const Tensor& x, const Tensor& target, py::handle weight, py::handle size_average,
         int64_t ignore_index, py::handle reduce, const std::string& r, double label_smoothing) {
        F::CrossEntropyFuncOptions o{.weight = optional_tensor(weight, "cross_entropy", "weight"),
                                     .ignore_index = ignore_index,
                                     .reduction = reduction(r, size_average, reduce),
                                     .label_smoothing = label_smoothing};
        return without_gil(x.numel(), [&] { return F::cross_entropy(x, target, o); });
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean",
      py::arg("label_smoothing") = 0.0);
  m.def(
      "nll_loss",
      [](const Tensor& x, const Tensor& target, py::handle weight, py::handle size_average,
         int64_t ignore_index, py::handle reduce, const std::string& r) {
        F::NLLLossFuncOptions o{.weight = optional_tensor(weight, "nll_loss", "weight"),
                                .ignore_index = ignore_index,
                                .reduction = reduction(r, size_average, reduce)};
        return F::nll_loss(x, target, o);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("size_average") = py::none(), py::arg("ignore_index") = -100,
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
  // Losses whose only option is the reduction.
  using PlainLoss = Tensor (*)(const Tensor&, const Tensor&, const std::string&);
  static const std::pair<const char*, PlainLoss> plain[] = {
      {"mse_loss", [](const Tensor& a, const Tensor& b,
                      const std::string& r) { return F::mse_loss(a, b, {.reduction = r}); }},
      {"l1_loss", [](const Tensor& a, const Tensor& b, const std::string& r) {
         return F::l1_loss(a, b, {.reduction = r});
       }}};
  for (auto [name, fn] : plain) {
    PlainLoss f = fn;
    m.def(
        name,
        [f](const Tensor& x, const Tensor& t, py::handle size_average, py::handle reduce,
            const std::string& r) { return f(x, t, reduction(r, size_average, reduce)); },
        py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
        py::arg("reduce") = py::none(), py::arg("reduction") = "mean");
  }
  m.def(
      "smooth_l1_loss",
      [](const Tensor& x, const Tensor& t, py::handle size_average, py::handle reduce,
         const std::string& r, double beta) {
        return F::smooth_l1_loss(x, t,
                                 {.reduction = reduction(r, size_average, reduce), .beta = beta});
      },
      py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  m.def(
      "huber_loss",
      [](const Tensor& x, const Tensor& t, const std::string& r, double delta) {
        return F::huber_loss(x, t, {.reduction = r, .delta = delta});
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0);
  m.def(
      "binary_cross_entropy",
      [](const Tensor& x, const Tensor& t, py::handle weight, py::handle size_average,
         py::handle reduce, const std::string& r) {
        return F::binary_cross_entropy(
            x, t,
            {.weight = optional_tensor(weight, "binary_cross_entropy", "weight"),
             .reduction = reduction(r, size_average, reduce)});
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
      py::arg("reduction") = "mean");
  m.def(
      "binary_cross_entropy_with_logits",
      [](const Tensor& x, const Tensor& t, py::handle weight, py::handle size_average,
         py::handle reduce, const std::string& r, py::handle pos_weight) {
        return F::binary_cross_entropy_with_logits(
            x, t,
            {.weight = optional_tensor(weight, "binary_cross_entropy_with_logits", "weight"),
             .reduction = reduction(r, size_average, reduce),
             .pos_weight =
                 optional_tensor(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")});
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(),
      py::arg("size_average") = py::none(), py::arg("reduce") = py::none(),
      py::arg("reduction") = "mean", py::arg("pos_weight") = py::none());
  m.def(
      "kl_div",
      [](const Tensor& x, const Tensor& t, py::handle size_average, py::handle reduce,
         const std::string& r, bool log_target) {
        return F::kl_div(
            x, t, {.reduction = reduction(r, size_average, reduce), .log_target = log_target});
      },
      py::arg("input"), py::arg("target"), py::arg("size_average") = py::none(),
      py::arg("reduce") = py::none(), py::arg("reduction") = "mean", py::arg("log_target") = false);
  m.def(
      "cosine_embedding_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, const std::string& r) {
        return F::cosine_embedding_loss(a, b, t, {.margin = margin, .reduction = r});
      },
      py::arg("input1"), py::arg("input2"), py::arg("target"), py::arg("margin") = 0.0,
      py::arg("reduction") = "mean");
  m.def(
      "margin_ranking_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, const std::string& r) {
        return F::margin_ranking_loss(a, b, t, {.margin = margin, .reduction = r});
      },
      py::arg("input1"), py::arg("input2"), py::arg("target"), py::arg("margin") = 0.0,
      py::arg("reduction") = "mean");
  m.def(
      "triplet_margin_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, double margin, double pn, double eps,
         bool swap, const std::string& r) {
        return F::triplet_margin_loss(
            a, p, n, {.margin = margin, .p = pn, .eps = eps, .swap = swap, .reduction = r});
      },
      py::arg("anchor"), py::arg("positive"), py::arg("negative"), py::arg("margin") = 1.0,
      py::arg("p") = 2.0, py::arg("eps") = 1e-6, py::arg("swap") = false,
      py::arg("reduction") = "mean");
  m.def(
      "one_hot",
      [](const Tensor& t, int64_t num_classes) { return ember::one_hot(t, num_classes); },
      py::arg("tensor"), py::arg("num_classes") = -1);
}

}  // namespace ember::python
