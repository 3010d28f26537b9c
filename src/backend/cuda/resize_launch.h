// What the host side (resize.cpp) hands the CUDA resizing kernels (resize.cu): interpolate's
// contiguous planes (P, H, W) -> (P, Ho, Wo) and pad's (P, D, H, W) -> (P, Do, Ho, Wo), as
// backend/resize_kernels.h lays them out, forward and backward. Plain structs, so nvcc compiles no
// ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// interpolate: forward, a thread per output element reading its (up to four) source elements;
/// backward, a thread per grad_input element gathering the grad elements whose outputs read it.
/// The source indices and weights are the CPU kernel's (backend/cpu/resize.cpp's axis_map, with
/// PyTorch's float arithmetic), recomputed per element; the backward adds each output's share in
/// the CPU's order (outputs in row-major order, a bilinear output's four terms in turn) and rounds
/// to the storage type after each add, as the CPU's scatter does, so both passes give its bits
/// and need no atomics.
struct ResizeLaunch {
  enum Pass : int32_t { forward_pass, backward_pass } pass;
  enum Mode : int32_t { nearest, nearest_exact, linear } mode;
  Type type;  // float32, float64, float16 or bfloat16
  int32_t align_corners;
  int32_t dims;  // 1: (P, 1, W) planes, one level of linear weights; 2: bilinear
  int64_t P;
  int64_t in[2], out[2];     // (H, W) of the input and of the output
  double scale[2];           // the user's scale factor per axis; 0 when none was given (or <= 0)
  const char* src;           // forward: the input planes; backward: grad (P, Ho, Wo)
  char* dst;                 // forward: (P, Ho, Wo); backward: grad_input (P, H, W)
  uint32_t blocks, threads;  // a grid-stride loop over dst's elements
};

/// Non-constant pad: forward, a thread per output element copying its source element (any dtype,
/// moved as itemsize-byte words); backward, a thread per grad_input element adding the grad
/// elements copied from it in the CPU's order (rounded after each add), so the CPU's bits and no
/// atomics. The source index per axis is PyTorch's reflect/replicate/circular formula (negative
/// pads crop).
struct PadLaunch {
  enum Pass : int32_t { forward_pass, backward_pass } pass;
  enum Mode : int32_t { reflect, replicate, circular } mode;
  Type type;         // backward: float32, float64, float16 or bfloat16
  int32_t itemsize;  // forward: 1, 2, 4 or 8
  int64_t planes;
  int64_t in[3], out[3];      // (D, H, W)
  int64_t left[3], right[3];  // the pads before and after each axis
  const char* src;            // forward: input (P, D, H, W); backward: grad (P, Do, Ho, Wo)
  char* dst;                  // forward: (P, Do, Ho, Wo); backward: grad_input (P, D, H, W)
  uint32_t blocks, threads;   // a grid-stride loop over dst's elements
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_resize(const ResizeLaunch& launch, void* stream);
int launch_pad(const PadLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
