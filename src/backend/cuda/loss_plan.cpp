// See loss_plan.h.
#include "backend/cuda/loss_plan.h"

#include <algorithm>

#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {
namespace {

/// The most threads of a position's block (block_threads picks fewer for few classes) and of
/// the one-block passes over all positions.
constexpr uint32_t kLossThreads = 256;

kernels::ClassLossLaunch loss_common(const backend::ClassLossCall& c, int64_t* bad) {
  const Tensor& x = c.x;
  EMBER_CHECK(x.dtype() == kFloat32 || x.dtype() == kFloat64, c.op, "the cuda backend has no ",
              dtype_name(x.dtype()), " kernel yet (", c.op,
              " on cuda computes in float32 or "
              "float64)");
  EMBER_CHECK(
      x.dim() == 3 && x.is_contiguous() && c.target.is_contiguous() && c.target.dtype() == kInt64 &&
          c.target.numel() == x.size(0) * x.size(2) &&
          (!c.weight.defined() || (c.weight.is_contiguous() && c.weight.dtype() == x.dtype() &&
                                   c.weight.numel() == x.size(1))),
      c.op,
      "expected a contiguous (N, C, S) input, (N * S) int64 targets and (C) "
      "weights, got ",
      x.sizes(), " and ", c.target.sizes(), " ", c.target.dtype());
  kernels::ClassLossLaunch l{};
  l.reduction = c.reduction == backend::LossReduction::None   ? kernels::ClassLossLaunch::none
                : c.reduction == backend::LossReduction::Mean ? kernels::ClassLossLaunch::mean
                                                              : kernels::ClassLossLaunch::sum;
  l.type = x.dtype() == kFloat32 ? kernels::Type::float32 : kernels::Type::float64;
  l.logits = c.logits;
  l.N = x.size(0);
  l.C = x.size(1);
  l.S = x.size(2);
  l.R = l.N * l.S;
  l.ignore_index = c.ignore_index;
  l.label_smoothing = c.label_smoothing;
  l.x = static_cast<const char*>(x.data_ptr());
  l.target = c.target.data_ptr<int64_t>();
  l.weight = c.weight.defined() ? static_cast<const char*>(c.weight.data_ptr()) : nullptr;
  l.bad = bad;
  return l;
}

/// The two passes of l: a one-block pass over all positions, and one block per position.
std::array<kernels::ClassLossLaunch, 2> loss_passes(kernels::ClassLossLaunch l,
                                                    kernels::ClassLossLaunch::Pass one_block,
                                                    kernels::ClassLossLaunch::Pass per_position) {
  kernels::ClassLossLaunch whole = l, rows = l;
  whole.pass = one_block;
  whole.blocks = 1;
  whole.threads = kLossThreads;
  rows.pass = per_position;
  rows.blocks = uint32_t(std::clamp<int64_t>(l.R, 1, 65536));
  rows.threads = block_threads(l.C, kLossThreads);
  return {whole, rows};
}

}  // namespace

int64_t class_loss_scratch(const backend::ClassLossCall& c) { return 3 * c.target.numel(); }

std::array<kernels::ClassLossLaunch, 2> plan_class_loss_launches(const backend::ClassLossCall& c,
                                                                 const Tensor& out, void* terms,
                                                                 int64_t* bad) {
  kernels::ClassLossLaunch l = loss_common(c, bad);
  l.terms = static_cast<char*>(terms);
  l.out = static_cast<char*>(out.data_ptr());
  const auto [total, rows] =
      loss_passes(l, kernels::ClassLossLaunch::total_pass, kernels::ClassLossLaunch::terms_pass);
  return {rows, total};
}

std::array<kernels::ClassLossLaunch, 2> plan_class_loss_backward_launches(
    const backend::ClassLossCall& c, const Tensor& grad_input, const Tensor& grad, void* sums,
    int64_t* bad) {
  kernels::ClassLossLaunch l = loss_common(c, bad);
  EMBER_CHECK(grad_input.is_contiguous() && grad_input.sizes() == c.x.sizes() &&
                  grad.is_contiguous() && grad.dtype() == c.x.dtype(),
              c.op,
              "expected a contiguous grad_input of the input's shape and a contiguous grad "
              "in its dtype");
  l.grad = static_cast<const char*>(grad.data_ptr());
  l.grad_input = static_cast<char*>(grad_input.data_ptr());
  l.sums = static_cast<char*>(sums);
  return loss_passes(l, kernels::ClassLossLaunch::weight_sums_pass,
                     kernels::ClassLossLaunch::grad_pass);
}

void raise_bad_target(const char* op, const int64_t* record) {
  if (record[0] != 0) fail(op, "Target ", record[1], " is out of bounds.");
}

}  // namespace ember::cuda
