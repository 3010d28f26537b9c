// The autocast op lists of PyTorch 1.13, per device.
//
// Note [Where the autocast lists come from]
// Op names and overloads: the registrations of the installed PyTorch 1.13 library for the
// AutocastCPU (126 ops) and AutocastCUDA (107 ops) dispatch keys,
// torch._C._dispatch_get_registrations_for_dispatch_key(key), written to
// tests/golden/autocast.json by tests/golden/gen_autocast.py; policy_table_test.cpp checks that
// each table below lists exactly those names. Policies: PyTorch 1.13's
// aten/src/ATen/autocast_mode.cpp, whose TORCH_LIBRARY_IMPL(aten, AutocastCPU, m) and
// TORCH_LIBRARY_IMPL(aten, Autocast, m) blocks register each op with KERNEL_CPU / KERNEL_CUDA
// and a policy, in the order kept here; the user-facing summary of the CUDA lists is the "Autocast
// Op Reference" of docs/source/amp.rst (1.13). The CPU policies were also measured on the
// installed library (../shared/reference/pytorch-1.13-probes/ac.py and the cpu_bf16 cases of
// autocast.json). Later PyTorch versions changed these lists (CPU: conv_transpose became
// lower precision, many fp32 entries were added); these are 1.13's.
//
// CPU autocast (bfloat16 in 1.13) differs from CUDA in ways that matter for training:
// softmax, log_softmax, layer_norm, group_norm, exp, log, sum, cumsum and pow are not listed on
// CPU (they run in the input's dtype, so a bfloat16 linear output flows through softmax and
// layer_norm in bfloat16), while CUDA casts them to float32. conv_transpose runs in float32 on
// CPU but in the lower dtype on CUDA. cat/stack/index_copy promote on CPU; CUDA does not list them.
#include "amp/policy_table.h"

#include <algorithm>
#include <array>

namespace ember::amp {
namespace {

using enum CastPolicy;

constexpr auto kCpu = std::to_array<OpPolicy>({
    // lower_precision_fp
    {"conv1d", kLowerPrecision},
    {"conv1d.padding", kLowerPrecision},
    {"conv2d", kLowerPrecision},
    {"conv2d.padding", kLowerPrecision},
    {"conv3d", kLowerPrecision},
    {"conv3d.padding", kLowerPrecision},
    {"bmm", kLowerPrecision},
    {"mm", kLowerPrecision},
    {"baddbmm", kLowerPrecision},
    {"addmm", kLowerPrecision},
    {"addbmm", kLowerPrecision},
    {"linear", kLowerPrecision},
    {"_convolution.deprecated", kLowerPrecision},
    {"matmul", kLowerPrecision},
    {"conv_tbc", kLowerPrecision},
    // fp32
    {"conv_transpose1d", kFloat32},
    {"conv_transpose2d.input", kFloat32},
    {"conv_transpose3d.input", kFloat32},
    {"avg_pool3d", kFloat32},
    {"binary_cross_entropy", kFloat32},
    {"grid_sampler", kFloat32},
    {"polar", kFloat32},
    {"prod", kFloat32},
    {"prod.dim_int", kFloat32},
    {"prod.dim_Dimname", kFloat32},
    {"quantile", kFloat32},
    {"quantile.scalar", kFloat32},
    {"nanquantile", kFloat32},
    {"nanquantile.scalar", kFloat32},
    {"stft", kFloat32},
    {"stft.center", kFloat32},
    {"cdist", kFloat32},
    {"grid_sampler_2d", kFloat32},
    {"_grid_sampler_2d_cpu_fallback", kFloat32},
    {"grid_sampler_3d", kFloat32},
    {"trace", kFloat32},
    {"view_as_complex", kFloat32},
    {"cholesky", kFloat32},
    {"cholesky_inverse", kFloat32},
    {"cholesky_solve", kFloat32},
    {"inverse", kFloat32},
    {"lu_solve", kFloat32},
    {"orgqr", kFloat32},
    {"ormqr", kFloat32},
    {"pinverse", kFloat32},
    {"max_pool3d", kFloat32},
    {"max_unpool2d", kFloat32},
    {"max_unpool3d", kFloat32},
    {"adaptive_avg_pool3d", kFloat32},
    {"reflection_pad1d", kFloat32},
    {"reflection_pad2d", kFloat32},
    {"replication_pad1d", kFloat32},
    {"replication_pad2d", kFloat32},
    {"replication_pad3d", kFloat32},
    {"mse_loss", kFloat32},
    {"cosine_embedding_loss", kFloat32},
    {"nll_loss", kFloat32},
    {"nll_loss2d", kFloat32},
    {"hinge_embedding_loss", kFloat32},
    {"poisson_nll_loss", kFloat32},
    {"smooth_l1_loss", kFloat32},
    {"cross_entropy_loss", kFloat32},
    {"l1_loss", kFloat32},
    {"huber_loss", kFloat32},
    {"margin_ranking_loss", kFloat32},
    {"soft_margin_loss", kFloat32},
    {"triplet_margin_loss", kFloat32},
    {"multi_margin_loss", kFloat32},
    {"ctc_loss.IntList", kFloat32},
    {"ctc_loss.Tensor", kFloat32},
    {"kl_div", kFloat32},
    {"multilabel_margin_loss", kFloat32},
    {"binary_cross_entropy_with_logits", kFloat32},
    {"fft_fft", kFloat32},
    {"fft_ifft", kFloat32},
    {"fft_fft2", kFloat32},
    {"fft_ifft2", kFloat32},
    {"fft_fftn", kFloat32},
    {"fft_ifftn", kFloat32},
    {"fft_rfft", kFloat32},
    {"fft_irfft", kFloat32},
    {"fft_rfft2", kFloat32},
    {"fft_irfft2", kFloat32},
    {"fft_rfftn", kFloat32},
    {"fft_irfftn", kFloat32},
    {"fft_hfft", kFloat32},
    {"fft_ihfft", kFloat32},
    {"linalg_cond", kFloat32},
    {"linalg_cond.p_str", kFloat32},
    {"linalg_matrix_rank", kFloat32},
    {"linalg_matrix_rank.tol_tensor", kFloat32},
    {"linalg_matrix_rank.atol_rtol_tensor", kFloat32},
    {"linalg_matrix_rank.atol_rtol_float", kFloat32},
    {"linalg_solve", kFloat32},
    {"linalg_cholesky", kFloat32},
    {"linalg_svdvals", kFloat32},
    {"linalg_eigvals", kFloat32},
    {"linalg_eigvalsh", kFloat32},
    {"linalg_inv", kFloat32},
    {"linalg_householder_product", kFloat32},
    {"linalg_tensorinv", kFloat32},
    {"linalg_tensorsolve", kFloat32},
    {"fake_quantize_per_tensor_affine", kFloat32},
    {"geqrf", kFloat32},
    {"_lu_with_info", kFloat32},
    {"qr", kFloat32},
    {"svd", kFloat32},
    {"symeig", kFloat32},
    {"triangular_solve", kFloat32},
    {"fractional_max_pool2d", kFloat32},
    {"fractional_max_pool3d", kFloat32},
    {"adaptive_max_pool3d", kFloat32},
    {"multilabel_margin_loss_forward", kFloat32},
    {"linalg_qr", kFloat32},
    {"linalg_cholesky_ex", kFloat32},
    {"linalg_svd", kFloat32},
    {"linalg_eig", kFloat32},
    {"linalg_eigh", kFloat32},
    {"linalg_lstsq", kFloat32},
    {"linalg_inv_ex", kFloat32},
    {"linalg_matrix_norm", kFloat32},
    {"linalg_matrix_norm.str_ord", kFloat32},
    // promote
    {"stack", kPromote},
    {"cat", kPromote},
    {"index_copy", kPromote},
    {"index_copy.dimname", kPromote},
});

constexpr auto kCuda = std::to_array<OpPolicy>({
    // lower_precision_fp
    {"_convolution.deprecated", kLowerPrecision},
    {"_convolution", kLowerPrecision},
    {"conv1d", kLowerPrecision},
    {"conv2d", kLowerPrecision},
    {"conv3d", kLowerPrecision},
    {"conv_tbc", kLowerPrecision},
    {"conv_transpose1d", kLowerPrecision},
    {"conv_transpose2d.input", kLowerPrecision},
    {"conv_transpose3d.input", kLowerPrecision},
    {"convolution", kLowerPrecision},
    {"cudnn_convolution", kLowerPrecision},
    {"cudnn_convolution_transpose", kLowerPrecision},
    {"prelu", kLowerPrecision},
    {"addmm", kLowerPrecision},
    {"addmv", kLowerPrecision},
    {"addr", kLowerPrecision},
    {"matmul", kLowerPrecision},
    {"einsum", kLowerPrecision},
    {"mm", kLowerPrecision},
    {"mv", kLowerPrecision},
    {"linear", kLowerPrecision},
    {"addbmm", kLowerPrecision},
    {"baddbmm", kLowerPrecision},
    {"bmm", kLowerPrecision},
    {"chain_matmul", kLowerPrecision},
    {"linalg_multi_dot", kLowerPrecision},
    {"_thnn_fused_lstm_cell", kLowerPrecision},
    {"_thnn_fused_gru_cell", kLowerPrecision},
    {"lstm_cell", kLowerPrecision},
    {"gru_cell", kLowerPrecision},
    {"rnn_tanh_cell", kLowerPrecision},
    {"rnn_relu_cell", kLowerPrecision},
    // fp32
    {"acos", kFloat32},
    {"asin", kFloat32},
    {"cosh", kFloat32},
    {"erfinv", kFloat32},
    {"exp", kFloat32},
    {"expm1", kFloat32},
    {"log", kFloat32},
    {"log10", kFloat32},
    {"log2", kFloat32},
    {"log1p", kFloat32},
    {"reciprocal", kFloat32},
    {"rsqrt", kFloat32},
    {"sinh", kFloat32},
    {"tan", kFloat32},
    {"pow.Tensor_Scalar", kFloat32},
    {"pow.Tensor_Tensor", kFloat32},
    {"pow.Scalar", kFloat32},
    {"softplus", kFloat32},
    {"layer_norm", kFloat32},
    {"native_layer_norm", kFloat32},
    {"group_norm", kFloat32},
    {"frobenius_norm", kFloat32},
    {"frobenius_norm.dim", kFloat32},
    {"nuclear_norm", kFloat32},
    {"nuclear_norm.dim", kFloat32},
    {"cosine_similarity", kFloat32},
    {"poisson_nll_loss", kFloat32},
    {"cosine_embedding_loss", kFloat32},
    {"nll_loss", kFloat32},
    {"nll_loss2d", kFloat32},
    {"hinge_embedding_loss", kFloat32},
    {"kl_div", kFloat32},
    {"l1_loss", kFloat32},
    {"smooth_l1_loss", kFloat32},
    {"huber_loss", kFloat32},
    {"mse_loss", kFloat32},
    {"margin_ranking_loss", kFloat32},
    {"multilabel_margin_loss", kFloat32},
    {"soft_margin_loss", kFloat32},
    {"triplet_margin_loss", kFloat32},
    {"multi_margin_loss", kFloat32},
    {"binary_cross_entropy_with_logits", kFloat32},
    {"dist", kFloat32},
    {"pdist", kFloat32},
    {"cdist", kFloat32},
    {"renorm", kFloat32},
    {"logsumexp", kFloat32},
    // fp32_set_opt_dtype
    {"prod", kFloat32SetOptDtype},
    {"prod.dim_int", kFloat32SetOptDtype},
    {"prod.dim_Dimname", kFloat32SetOptDtype},
    {"softmax.int", kFloat32SetOptDtype},
    {"softmax.Dimname", kFloat32SetOptDtype},
    {"log_softmax.int", kFloat32SetOptDtype},
    {"log_softmax.Dimname", kFloat32SetOptDtype},
    {"cumprod", kFloat32SetOptDtype},
    {"cumprod.dimname", kFloat32SetOptDtype},
    {"cumsum", kFloat32SetOptDtype},
    {"cumsum.dimname", kFloat32SetOptDtype},
    {"sum", kFloat32SetOptDtype},
    {"sum.dim_IntList", kFloat32SetOptDtype},
    {"sum.dim_DimnameList", kFloat32SetOptDtype},
    // fp32_append_dtype
    {"norm.Scalar", kFloat32AppendDtype},
    {"norm.ScalarOpt_dim", kFloat32AppendDtype},
    {"norm.names_ScalarOpt_dim", kFloat32AppendDtype},
    // promote
    {"addcdiv", kPromote},
    {"addcmul", kPromote},
    {"atan2", kPromote},
    {"bilinear", kPromote},
    {"cross", kPromote},
    {"dot", kPromote},
    {"grid_sampler", kPromote},
    {"index_put", kPromote},
    {"tensordot", kPromote},
    {"scatter_add", kPromote},
    // banned: "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to
    // autocast" (use binary_cross_entropy_with_logits)
    {"binary_cross_entropy", kBanned},
});

}  // namespace

std::span<const OpPolicy> autocast_policy_table(DeviceType device) {
  if (device == kCUDA) return kCuda;
  return kCpu;
}

std::optional<CastPolicy> autocast_policy(DeviceType device, std::string_view op) {
  // A few hundred comparisons at most, and only inside an autocast region; the hook caches the
  // answer per op name, so a linear scan is enough here.
  const auto table = autocast_policy_table(device);
  const bool has_overload = op.find('.') != std::string_view::npos;
  for (const OpPolicy& entry : table)
    if (entry.op == op) return entry.policy;
  if (!has_overload) {
    // "softmax" names the op whatever its overload: the first listed overload decides (all
    // overloads of one op share a policy in PyTorch's lists).
    for (const OpPolicy& entry : table)
      if (entry.op.size() > op.size() && entry.op.starts_with(op) && entry.op[op.size()] == '.')
        return entry.policy;
  }
  return std::nullopt;
}

std::string_view policy_name(CastPolicy policy) {
  switch (policy) {
    case kLowerPrecision: return "lower_precision_fp";
    case kFloat32: return "fp32";
    case kFloat32SetOptDtype: return "fp32_set_opt_dtype";
    case kFloat32AppendDtype: return "fp32_append_dtype";
    case kPromote: return "promote";
    case kBanned: return "banned";
  }
  return "?";
}

}  // namespace ember::amp
