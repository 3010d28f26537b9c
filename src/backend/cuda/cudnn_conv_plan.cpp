// See cudnn_conv_plan.h.
#include "backend/cuda/cudnn_conv_plan.h"

#include <atomic>
#include <climits>
#include <sstream>

#include "backend/cuda/conv_plan.h"

namespace ember::cuda {
namespace {

std::atomic<bool> g_cudnn_enabled{true};

/// The dims and contiguous strides of a 4-D tensor of these sizes, as int (the caller checked the
/// element count fits).
void contiguous_dims(const std::array<int64_t, 4>& sizes, std::array<int, 4>& dims,
                     std::array<int, 4>& strides) {
  int64_t stride = 1;
  for (int k = 3; k >= 0; --k) {
    dims[size_t(k)] = int(sizes[size_t(k)]);
    strides[size_t(k)] = int(stride);
    stride *= sizes[size_t(k)];
  }
}

/// The output length cuDNN's forward computes along one dimension (cudnnGetConvolutionNdForward-
/// OutputDim's formula), or 0 when the kernel does not fit.
int64_t forward_length(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

CudnnType cudnn_type(Dtype t) {
  switch (t) {
    case kFloat64: return CudnnType::float64;
    case kFloat16: return CudnnType::float16;
    case kBFloat16: return CudnnType::bfloat16;
    default: return CudnnType::float32;
  }
}

CudnnConvPlan fallback(CudnnConvPlan plan, std::string why) {
  plan.use_cudnn = false;
  plan.fallback = std::move(why);
  return plan;
}

}  // namespace

bool cudnn_conv_enabled() { return g_cudnn_enabled.load(std::memory_order_relaxed); }
void set_cudnn_conv_enabled(bool enabled) {
  g_cudnn_enabled.store(enabled, std::memory_order_relaxed);
}

CudnnConvPlan plan_cudnn_conv(const char* op, CudnnConvPass pass, const Tensor& x, const Tensor& w,
                              const Tensor& y, const Tensor& bias,
                              const backend::Conv2dParams& p, const CudnnDevice& device) {
  const ConvShape s = conv_shape(op, x, w, y, p);
  // The bias lies on the output's channels: y's for forward, x's for the adjoint.
  const int64_t bias_channels = pass == CudnnConvPass::forward ? s.O : s.C;
  EMBER_CHECK(!bias.defined() || (pass != CudnnConvPass::backward_filter &&
                                  bias.is_contiguous() && bias.numel() == bias_channels &&
                                  bias.dtype() == x.dtype()),
              op, "expected a contiguous bias of ", bias_channels, " ", x.dtype(),
              pass == CudnnConvPass::backward_filter ? " (none for the weight gradient)" : "",
              ", got ", bias.sizes(), " ", bias.dtype());
  CudnnConvPlan plan;
  plan.pass = pass;
  if (!cudnn_conv_enabled()) return fallback(plan, "cuDNN is switched off (cudnn_conv_enabled)");
  if (x.numel() == 0 || w.numel() == 0 || y.numel() == 0)
    return fallback(plan, "an empty tensor: cuDNN takes no zero-sized dimension");
  for (const Tensor* t : {&x, &w, &y})
    if (t->numel() > INT_MAX)  // descriptors' dims and strides are int
      return fallback(plan, "a tensor of more than 2^31 - 1 elements, beyond cuDNN's int strides");
  for (size_t k = 0; k < 2; ++k)
    if (p.padding[k] > INT_MAX || p.stride[k] > INT_MAX || p.dilation[k] > INT_MAX)
      return fallback(plan, "a padding, stride or dilation beyond cuDNN's int range");
  if (x.dtype() == kBFloat16 && device.compute_capability_major < 8) {
    std::ostringstream why;
    why << "bfloat16 convolutions need compute capability 8.0 in cuDNN, the device has "
        << device.compute_capability_major << ".x";
    return fallback(plan, why.str());
  }
  const int64_t Ho = forward_length(s.H, s.kh, p.padding[0], p.stride[0], p.dilation[0]);
  const int64_t Wo = forward_length(s.W, s.kw, p.padding[1], p.stride[1], p.dilation[1]);
  if (Ho != s.Ho || Wo != s.Wo) {
    std::ostringstream why;
    why << "the output is " << s.Ho << "x" << s.Wo << " where cuDNN's forward gives " << Ho << "x"
        << Wo << " for an input of " << s.H << "x" << s.W;
    return fallback(plan, why.str());
  }
  plan.use_cudnn = true;
  contiguous_dims({s.N, s.C, s.H, s.W}, plan.x_dims, plan.x_strides);
  contiguous_dims({s.N, s.O, s.Ho, s.Wo}, plan.y_dims, plan.y_strides);
  std::array<int, 4> w_strides{};
  contiguous_dims({s.O, s.C / s.G, s.kh, s.kw}, plan.w_dims, w_strides);
  for (size_t k = 0; k < 2; ++k) {
    plan.padding[k] = int(p.padding[k]);
    plan.stride[k] = int(p.stride[k]);
    plan.dilation[k] = int(p.dilation[k]);
  }
  plan.groups = int(s.G);
  plan.data_type = cudnn_type(x.dtype());
  plan.compute_type = x.dtype() == kFloat64 ? CudnnType::float64 : CudnnType::float32;
  switch (x.dtype()) {
    case kFloat16:
    case kBFloat16: plan.math = CudnnMath::tensor_op; break;
    case kFloat32: plan.math = device.allow_tf32 ? CudnnMath::default_math : CudnnMath::fma; break;
    default: plan.math = CudnnMath::default_math;
  }
  if (bias.defined()) {
    plan.bias = true;
    contiguous_dims({1, bias_channels, 1, 1}, plan.bias_dims, plan.bias_strides);
  }
  return plan;
}

}  // namespace ember::cuda
