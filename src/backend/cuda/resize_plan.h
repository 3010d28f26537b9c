// The host half of the CUDA resizing kernels, apart from the CUDA build so that every build
// compiles and tests it: ResizeKernels' interpolate, interpolate_backward, pad and pad_backward
// arguments become a kernels::ResizeLaunch or kernels::PadLaunch. No device is touched.
#pragma once

#include "backend/cuda/resize_launch.h"
#include "backend/resize_kernels.h"

namespace ember::cuda {

/// interpolate of planes (P, H, W) into out (P, Ho, Wo), or its backward (`backward`: planes is
/// grad (P, Ho, Wo), out grad_input (P, H, W)); contiguous, one floating dtype, r's sizes.
kernels::ResizeLaunch plan_resize_launch(const Tensor& out, const Tensor& planes,
                                         const backend::ResizeParams& r, bool backward);

/// pad of input (p's planes of (D, H, W), in its own shape) into out (planes of (Do, Ho, Wo)),
/// any dtype, or its backward (`backward`: input is grad, out grad_input, floating); contiguous.
kernels::PadLaunch plan_pad_launch(const Tensor& out, const Tensor& input,
                                   const backend::PadParams& p, bool backward);

}  // namespace ember::cuda
