// The host half of the cuDNN convolution, apart from the CUDA build so that every build compiles
// and tests it (no cuDNN header here): what conv.cpp hands cuDNN 9's convolution descriptor API
// (cudnn_cnn.h: cudnnConvolutionForward, cudnnConvolutionBackwardData,
// cudnnConvolutionBackwardFilter, the algorithm from cudnnGetConvolution*Algorithm_v7) for one
// call of the convolution family's kernels, and which calls it does not take.
//
// Every call is planned the same way for the three passes: x is the convolution's input (NCHW),
// w its weight (O, C / groups, kH, kW; cuDNN's NCHW filter) and y its output (N, O, Ho, Wo):
//   forward         y = conv(x, w) (+ bias on y's channels),                conv2d
//   backward_data   x = conv's adjoint of y through w (+ bias on x's ones),  conv2d_adjoint
//   backward_filter w = conv's weight gradient from y and x,                conv2d_weight_grad
// The data types follow PyTorch 1.13's cuDNN convolutions: float16 and bfloat16 compute in
// float32, float32 in float32, float64 in float64. The math type: float16/bfloat16 may use tensor
// cores (CUDNN_TENSOR_OP_MATH); float32 uses them (TF32) only when TF32 is allowed, else
// CUDNN_FMA_MATH, as PyTorch's ConvolutionDescriptor::set. ember has no TF32 switch that can be
// true: at::globalContext().allowTF32CuDNN() is false and refuses true
// (include/ember/libtorch/ATen/Context.h), so conv.cpp passes kCudnnAllowTf32 = false, where
// PyTorch's default (torch.backends.cudnn.allow_tf32) is true.
//
// The calls cuDNN does not take run ember's own im2col + GEMM kernels (conv_plan.h), with the
// reason in the plan: cuDNN switched off (cudnn_conv_enabled, torch.backends.cudnn.enabled), an
// empty tensor, a tensor beyond cuDNN's int indexing, bfloat16 below compute capability 8.0, or an
// output of other sizes than cuDNN's forward would give (conv_transpose's output_padding of at
// least the stride leaves rows the convolution never reads).
#pragma once

#include <array>
#include <string>

#include "backend/conv_kernels.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// Which cuDNN convolution a kernel entry runs.
enum class CudnnConvPass { forward, backward_data, backward_filter };

/// cudnnDataType_t's values the plans use, by name (conv.cpp maps them).
enum class CudnnType { float32, float64, float16, bfloat16 };

/// cudnnMathType_t's values the plans use, by name.
enum class CudnnMath { default_math, tensor_op, fma };

/// ember's TF32 setting for cuDNN convolutions (see above): off, the one value it accepts.
inline constexpr bool kCudnnAllowTf32 = false;

/// Whether the CUDA convolutions may use cuDNN (torch.backends.cudnn.enabled; true by default). A
/// process-wide switch, read by every plan; the device tests turn it off to run the own kernels.
bool cudnn_conv_enabled();
void set_cudnn_conv_enabled(bool enabled);

/// One call's descriptors: the values of cudnnSetTensorNdDescriptor (x, y, bias),
/// cudnnSetFilterNdDescriptor (w, CUDNN_TENSOR_NCHW), cudnnSetConvolutionNdDescriptor (two
/// spatial dimensions, CUDNN_CROSS_CORRELATION), cudnnSetConvolutionGroupCount and
/// cudnnSetConvolutionMathType. Meaningful only when use_cudnn.
struct CudnnConvPlan {
  bool use_cudnn = false;
  std::string fallback;  // why the own kernels run it instead; empty when use_cudnn
  CudnnConvPass pass = CudnnConvPass::forward;
  std::array<int, 4> x_dims{}, x_strides{}, w_dims{}, y_dims{}, y_strides{};
  std::array<int, 2> padding{}, stride{}, dilation{};
  int groups = 1;
  CudnnType data_type = CudnnType::float32, compute_type = CudnnType::float32;
  CudnnMath math = CudnnMath::default_math;
  bool bias = false;  // added after the convolution (cudnnAddTensor), as PyTorch does
  std::array<int, 4> bias_dims{}, bias_strides{};  // (1, channels, 1, 1)
};

/// The device's properties the plan depends on.
struct CudnnDevice {
  int compute_capability_major = 0;
  bool allow_tf32 = kCudnnAllowTf32;
};

/// Plans `pass` over x, w, y as above, with `bias` (undefined, or one value per channel of y for
/// forward, of x for backward_data; none for backward_filter). The operands are checked as the own
/// kernels check them (conv_shape: `[op] ...` for operands neither path takes); a call cuDNN
/// should not run comes back with use_cudnn false and its reason.
CudnnConvPlan plan_cudnn_conv(const char* op, CudnnConvPass pass, const Tensor& x, const Tensor& w,
                              const Tensor& y, const Tensor& bias,
                              const backend::Conv2dParams& p, const CudnnDevice& device);

}  // namespace ember::cuda
