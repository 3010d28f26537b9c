// See norm_plan.h.
#include "backend/cuda/norm_plan.h"

#include <algorithm>
#include <initializer_list>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {
namespace {

/// The storage type of x (floating), after checking the layouts the kernels assume: the
/// activations contiguous in x's dtype, the parameters and statistics contiguous in its op math
/// dtype, M * N elements in x.
kernels::Type checked_type(const char* op, const Tensor& x, std::initializer_list<Tensor> same,
                           std::initializer_list<Tensor> opmath, int64_t M, int64_t N) {
  EMBER_CHECK(x.is_floating_point(), op, "the cuda backend has no ", dtype_name(x.dtype()),
              " kernel yet (", op, " on cuda takes float32, float64, float16 or bfloat16)");
  const Dtype cd = x.dtype() == kFloat64 ? kFloat64 : kFloat32;
  bool ok = x.is_contiguous() && x.numel() == M * N;
  for (const Tensor& t : same) ok &= !t.defined() || (t.is_contiguous() && t.dtype() == x.dtype());
  for (const Tensor& t : opmath) ok &= !t.defined() || (t.is_contiguous() && t.dtype() == cd);
  EMBER_CHECK(ok, op, "expected contiguous operands, x of ", M, " x ", N, " elements and its ",
              "statistics and parameters in ", dtype_name(cd), ", got x ", x.sizes(), " ",
              x.dtype());
  return storage_type(x.dtype(), op);
}

/// One block per row (at most 65536, striding over the rest) of threads for N columns.
template <class L>
void row_grid(L& l, int64_t M, int64_t N) {
  l.threads = block_threads(N, kRowNormThreads);
  l.blocks = uint32_t(std::clamp<int64_t>(M, 1, 65536));
}

/// group_norm's shapes: C divisible by G, (N, G) statistics, (C) parameters (either undefined).
void check_groups(const Tensor& x, const Tensor& mean, const Tensor& weight, const Tensor& other,
                  int64_t G) {
  const int64_t N = x.size(0), C = x.size(1);
  EMBER_CHECK(x.dim() >= 2 && G > 0 && C % G == 0 && mean.numel() == N * G &&
                  (!weight.defined() || weight.numel() == C) &&
                  (!other.defined() || other.numel() == C),
              "group_norm",
              "expected C divisible by G, (N, G) statistics and (C) parameters, "
              "got ",
              x.sizes(), " in ", G, " groups");
}

}  // namespace

kernels::RowNormLaunch plan_row_norm_launch(const Tensor& y, const Tensor& mean, const Tensor& rstd,
                                            const Tensor& x, const Tensor& weight,
                                            const Tensor& bias, int64_t M, int64_t N, double eps) {
  const char* op = mean.defined() ? "layer_norm" : "rms_norm";
  kernels::RowNormLaunch l{};
  l.type = checked_type(op, x, {y}, {mean, rstd, weight, bias}, M, N);
  l.rows = M;
  l.cols = N;
  l.channels = {1, 1};
  l.eps = eps;
  l.x = data_or_null<const char>(x);
  l.y = data_or_null(y);
  l.weight = data_or_null<const char>(weight);
  l.bias = data_or_null<const char>(bias);
  l.mean = data_or_null(mean);
  l.rstd = data_or_null(rstd);
  row_grid(l, M, N);
  return l;
}

kernels::RowNormLaunch plan_group_norm_launch(const Tensor& y, const Tensor& mean,
                                              const Tensor& rstd, const Tensor& x,
                                              const Tensor& weight, const Tensor& bias, int64_t G,
                                              double eps) {
  const int64_t N = x.size(0), C = x.size(1), S = N * C > 0 ? x.numel() / (N * C) : 0;
  check_groups(x, mean, weight, bias, G);
  // The layouts are checked as layer_norm's (the parameters' counts are not: C, checked above).
  kernels::RowNormLaunch l =
      plan_row_norm_launch(y, mean, rstd, x, weight, bias, N * G, C / G * S, eps);
  l.channels = {G, S};
  return l;
}

std::array<kernels::RowNormBackwardLaunch, 2> plan_row_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& mean, const Tensor& rstd, const Tensor& weight, int64_t M,
    int64_t N) {
  const char* op = mean.defined() ? "layer_norm_backward" : "rms_norm_backward";
  kernels::RowNormBackwardLaunch l{};
  l.type = checked_type(op, x, {grad_out, grad_input}, {mean, rstd, weight, grad_weight, grad_bias},
                        M, N);
  l.rows = M;
  l.cols = N;
  l.x = data_or_null<const char>(x);
  l.grad_out = data_or_null<const char>(grad_out);
  l.mean = data_or_null<const char>(mean);
  l.rstd = data_or_null<const char>(rstd);
  l.weight = data_or_null<const char>(weight);
  l.channels = {1, 1};
  std::array<kernels::RowNormBackwardLaunch, 2> passes{l, l};
  auto& [rows, columns] = passes;
  rows.pass = kernels::RowNormBackwardLaunch::rows_pass;
  rows.grad_input = data_or_null(grad_input);
  row_grid(rows, M, N);
  columns.pass = kernels::RowNormBackwardLaunch::columns_pass;
  columns.grad_weight = data_or_null(grad_weight);
  columns.grad_bias = data_or_null(grad_bias);
  columns.threads = kElementwiseThreads;
  columns.blocks = grid_blocks(N);
  return passes;
}

std::array<kernels::RowNormBackwardLaunch, 2> plan_group_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& mean, const Tensor& rstd, const Tensor& weight,
    int64_t G) {
  const int64_t N = x.size(0), C = x.size(1), S = N * C > 0 ? x.numel() / (N * C) : 0;
  check_groups(x, mean, weight, grad_weight, G);
  auto passes = plan_row_norm_backward_launches(grad_input, grad_weight, grad_bias, x, grad_out,
                                                mean, rstd, weight, N * G, C / G * S);
  for (auto& pass : passes) pass.channels = {G, S};
  passes[1].blocks = grid_blocks(C);
  return passes;
}

}  // namespace ember::cuda
