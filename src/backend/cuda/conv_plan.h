// The host half of the CUDA convolution, apart from the CUDA build so that every build compiles
// and tests it. conv2d, its adjoint (grad_input, conv_transpose2d) and its weight gradient run as
// PyTorch's slow_conv2d does: im2col (conv.cu's column kernel) lays each output position's
// receptive field out as a column, and the backend's GEMM (cuBLAS, gemm.cpp) multiplies the
// columns by the weights, per group; the adjoint's columns go back into images by col2im, a
// gather that sums the patches covering each element (conv_launch.h). The images are taken in
// chunks so the column buffer stays within a budget.
//
// cuDNN is the fast path (cudnn_conv_plan.h; conv.cpp tries it first); this path runs the calls
// cuDNN does not take and whatever runs with cuDNN switched off, and it is the one that can be
// checked without a GPU: the driver below runs with any gemm and any runner of the column
// launches, so the CPU tests run it whole over CPU tensors, with the CPU's gemm and the emulated
// kernels.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "backend/conv_kernels.h"
#include "backend/cuda/conv_launch.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// A convolution's sizes: input (N, C, H, W), weight (O, C / G, kh, kw), output (N, O, Ho, Wo).
struct ConvShape {
  int64_t N, C, H, W, O, kh, kw, Ho, Wo, G;
  int64_t K() const { return C / G * kh * kw; }  // a column's length: one group's taps
  int64_t L() const { return Ho * Wo; }          // columns per image
};

/// The shape of conv2d(input, weight) -> out, checked: 4-D contiguous operands of one floating
/// dtype whose channels agree with p.groups; `[op] ...` otherwise.
ConvShape conv_shape(const char* op, const Tensor& input, const Tensor& weight, const Tensor& out,
                     const backend::Conv2dParams& p);

/// The column kernel over `images` (n images of s's (C, H, W), contiguous) and `col` (its
/// elements at col_stride, conv_launch.h): im2col writes col from the images; col2im writes the
/// images from col, plus bias (C) when defined.
kernels::Im2colLaunch plan_im2col_launch(const ConvShape& s, const backend::Conv2dParams& p,
                                         const Tensor& images, const Tensor& col,
                                         const std::array<int64_t, 3>& col_stride, bool col2im,
                                         const Tensor& bias = {});

/// How the convolutions below run their steps: `gemm` is a backend's LinalgKernels::gemm (the
/// CUDA backend's on the device), `columns` runs a column launch (on the device, or emulated),
/// and `col_bytes` bounds the column buffer (a chunk of images holds at least one).
struct ConvSteps {
  void (*gemm)(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha, Scalar beta);
  std::function<void(const kernels::Im2colLaunch&)> columns;
  int64_t col_bytes = int64_t(256) << 20;
};

/// ConvKernels::conv2d: per chunk of images, im2col, then per group out = weight @ columns (after
/// out = bias, with beta 1, so the half types round once); a 1x1 kernel of stride 1 and no padding
/// reads the images as its columns.
void conv2d_by_gemm(const ConvSteps& steps, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, const Tensor& out, const backend::Conv2dParams& p);

/// ConvKernels::conv2d_adjoint: per chunk and group, columns = weight^T @ grad, then col2im
/// (plus bias).
void conv2d_adjoint_by_gemm(const ConvSteps& steps, const Tensor& grad, const Tensor& weight,
                            const Tensor& bias, const Tensor& out, const backend::Conv2dParams& p);

/// ConvKernels::conv2d_weight_grad: per chunk, im2col into (G, K, n, L) columns, then one GEMM
/// per chunk over the groups, grad_weight[g] (+)= grad[g] (Og, n L) @ columns[g]^T, the chunk's
/// images and positions summed inside the GEMM.
void conv2d_weight_grad_by_gemm(const ConvSteps& steps, const Tensor& grad, const Tensor& input,
                                const Tensor& grad_weight, const backend::Conv2dParams& p);

}  // namespace ember::cuda
