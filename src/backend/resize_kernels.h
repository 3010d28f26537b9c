// The resizing family's kernels (src/ops/resize.cpp): interpolate and non-constant pad, forward
// and backward. The front end checks the arguments with PyTorch's messages and reduces each call
// to planes (P, H, W) — (P, D, H, W) for pad — described by the params below; a kernel derives
// its per-axis index maps and weights from them with PyTorch's own arithmetic. Constant padding
// is a fill and a copy, so it needs no kernel.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember::backend {

enum class ResizeMode : uint8_t { Nearest, NearestExact, Linear };

/// An interpolate call: 1-D problems have H == 1.
struct ResizeParams {
  ResizeMode mode = ResizeMode::Nearest;
  bool align_corners = false;
  int dims = 2;                             // spatial dims: 1 (N, C, L) or 2 (N, C, H, W)
  int64_t in[2] = {1, 1}, out[2] = {1, 1};  // (H, W)
  std::optional<double> scale[2];           // the user's scale factors
};

enum class PadMode : uint8_t { Reflect, Replicate, Circular };

/// A non-constant pad of up to three trailing dims as planes (P, D, H, W); unpadded axes have
/// size 1 and no padding. Negative pads crop.
struct PadParams {
  PadMode mode = PadMode::Reflect;
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};  // (D, H, W)
  int64_t left[3] = {0, 0, 0}, right[3] = {0, 0, 0};
};

struct ResizeKernels {
  /// out (P, Ho, Wo) = input (P, H, W) resized; both contiguous, one floating dtype.
  void (*interpolate)(const Tensor& out, const Tensor& input, const ResizeParams& r) = nullptr;
  /// grad_input (P, H, W) = the adjoint of interpolate applied to grad (P, Ho, Wo).
  void (*interpolate_backward)(const Tensor& grad_input, const Tensor& grad,
                               const ResizeParams& r) = nullptr;
  /// out (P, Do, Ho, Wo) = input (P, D, H, W) padded; both contiguous, any dtype.
  void (*pad)(const Tensor& out, const Tensor& input, const PadParams& p) = nullptr;
  /// grad_input (P, D, H, W) = the sum of grad (P, Do, Ho, Wo) over the output elements each
  /// input element was copied to; floating dtypes.
  void (*pad_backward)(const Tensor& grad_input, const Tensor& grad, const PadParams& p) = nullptr;
};

}  // namespace ember::backend
