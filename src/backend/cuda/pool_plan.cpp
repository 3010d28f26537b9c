// See pool_plan.h.
#include "backend/cuda/pool_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/gather_plan.h"

namespace ember::cuda {
namespace {

/// A pooling launch's planes (P, H, W) of `input` pooled to (P, Ho, Wo), its window (those of
/// p the launch has), the tensors it reads and writes and a thread per element of `out`.
template <class L>
void set_planes(L& l, const Tensor& input, const Tensor& pooled, const Tensor& in,
                const Tensor& out, const backend::Pool2dParams& p) {
  l.P = input.size(0);
  l.H = input.size(1);
  l.W = input.size(2);
  l.Ho = pooled.size(1);
  l.Wo = pooled.size(2);
  for (int k = 0; k < 2; ++k) {
    l.kernel[k] = p.kernel[k];
    l.stride[k] = p.stride[k];
    l.padding[k] = p.padding[k];
    if constexpr (requires { l.dilation[k]; }) l.dilation[k] = p.dilation[k];
  }
  l.in = static_cast<const char*>(in.data_ptr());
  l.out = static_cast<char*>(out.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(out.numel());
}

}  // namespace

kernels::MaxPoolLaunch plan_max_pool_launch(const Tensor& input, const Tensor& out,
                                            const Tensor& indices, const backend::Pool2dParams& p,
                                            bool adaptive) {
  const char* op = "max_pool2d";
  EMBER_CHECK(input.is_floating_point(), op, "the cuda backend has no ", dtype_name(input.dtype()),
              " kernel yet");
  EMBER_CHECK(input.dim() == 3 && out.dim() == 3 && input.is_contiguous() && out.is_contiguous() &&
                  out.dtype() == input.dtype() && out.size(0) == input.size(0) &&
                  (!indices.defined() || (indices.is_contiguous() && indices.dtype() == kInt64 &&
                                          indices.sizes() == out.sizes())),
              op,
              "expected contiguous (P, H, W) planes, (P, Ho, Wo) outputs and int64 indices, got ",
              input.sizes(), " and ", out.sizes());
  kernels::MaxPoolLaunch l{};
  l.type = storage_type(input.dtype(), op);
  l.adaptive = adaptive;
  set_planes(l, input, out, input, out, p);
  l.indices = data_or_null<int64_t>(indices);
  return l;
}

kernels::AvgPoolLaunch plan_avg_pool_launch(const Tensor& planes, const Tensor& out,
                                            const backend::Pool2dParams& p, bool count_include_pad,
                                            int64_t divisor, bool adaptive, bool backward) {
  const char* op = backward ? "avg_pool2d_backward" : "avg_pool2d";
  EMBER_CHECK(planes.is_floating_point(), op, "the cuda backend has no ",
              dtype_name(planes.dtype()), " kernel yet");
  EMBER_CHECK(planes.dim() == 3 && out.dim() == 3 && planes.is_contiguous() &&
                  out.is_contiguous() && out.dtype() == planes.dtype() &&
                  out.size(0) == planes.size(0),
              op, "expected contiguous (P, H, W) and (P, Ho, Wo) planes of one dtype, got ",
              planes.sizes(), " and ", out.sizes());
  const Tensor& input = backward ? out : planes;
  const Tensor& pooled = backward ? planes : out;
  kernels::AvgPoolLaunch l{};
  l.pass = backward ? kernels::AvgPoolLaunch::backward_pass : kernels::AvgPoolLaunch::forward_pass;
  l.type = storage_type(planes.dtype(), op);
  l.adaptive = adaptive;
  l.count_include_pad = count_include_pad;
  l.divisor = divisor;
  set_planes(l, input, pooled, planes, out, p);
  return l;
}

kernels::GatherLaunch plan_max_pool_backward_launch(const Tensor& grad, const Tensor& indices,
                                                    const Tensor& grad_input, int64_t* bad) {
  EMBER_CHECK(grad.dim() == 3 && grad_input.dim() == 3 && indices.sizes() == grad.sizes() &&
                  grad.size(0) == grad_input.size(0) && grad_input.is_contiguous(),
              "max_pool2d_backward",
              "expected (P, Ho, Wo) grad and indices and a contiguous "
              "(P, H, W) grad_input, got ",
              grad.sizes(), " and ", grad_input.sizes());
  const int64_t P = grad.size(0);
  return plan_gather_launch(kernels::GatherOp::scatter_add, grad_input.view({P, -1}), 1,
                            indices.reshape({P, -1}), grad.reshape({P, -1}), bad);
}

}  // namespace ember::cuda
