// What the host side (conv.cpp, through conv_plan.cpp) hands the CUDA convolution's own kernels
// (conv.cu): im2col, which lays each output position's receptive field out as a column for the
// cuBLAS GEMM, and col2im, its adjoint, which sums the columns back into images. A plain struct,
// so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// Images (N, C, H, W), contiguous, and their columns: element (n, g, k, l) of the columns, for
/// group g, row k = (c, i, j) of the group's C / G channels and kernel taps, and output position
/// l = (y, x) of (Ho, Wo), lies at n * col_stride[0] + g * col_stride[1] + k * col_stride[2] + l.
/// Its value is image element (n, g * C / G + c, y * stride - padding + i * dilation, likewise
/// for x), zero in the padding.
///   - im2col: a thread per column element writes it (a copy: exact in every type);
///   - col2im: a thread per image element sums, in opmath and in (i, j) order, the column
///     elements that hold it, adds bias[c] when there is one and rounds once: a gather over the
///     patches that cover the element, so no two threads write one element and the sum's order is
///     fixed (no atomics; the emulation's bits are the device's).
struct Im2colLaunch {
  enum Pass : int32_t { im2col, col2im } pass;
  Type type;  // float32, float64, float16 or bfloat16
  int64_t N, C, H, W;
  int64_t groups;
  int64_t Ho, Wo;
  int64_t kernel[2], stride[2], padding[2], dilation[2];  // (H, W)
  int64_t col_stride[3];                                  // elements, for n, g and k
  const char* in;                                         // im2col: the images; col2im: the columns
  char* out;                                              // im2col: the columns; col2im: the images
  const char* bias;                                       // col2im: (C) or null
  uint32_t blocks, threads;  // a grid-stride loop over the elements written
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_im2col(const Im2colLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
