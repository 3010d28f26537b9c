// See resize_plan.h.
#include "backend/cuda/resize_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {

kernels::ResizeLaunch plan_resize_launch(const Tensor& out, const Tensor& planes,
                                         const backend::ResizeParams& r, bool backward) {
  const char* op = backward ? "interpolate_backward" : "interpolate";
  EMBER_CHECK(planes.is_floating_point(), op, "the cuda backend has no ",
              dtype_name(planes.dtype()), " kernel yet");
  const int64_t P = planes.dim() == 3 ? planes.size(0) : -1;
  const IntArrayRef in_sizes = backward ? out.sizes() : planes.sizes();
  const IntArrayRef out_sizes = backward ? planes.sizes() : out.sizes();
  EMBER_CHECK(planes.dim() == 3 && out.dim() == 3 && planes.is_contiguous() &&
                  out.is_contiguous() && out.dtype() == planes.dtype() && out.size(0) == P &&
                  in_sizes[1] == r.in[0] && in_sizes[2] == r.in[1] && out_sizes[1] == r.out[0] &&
                  out_sizes[2] == r.out[1] && (r.dims == 1 || r.dims == 2) &&
                  (r.dims == 2 || (r.in[0] == 1 && r.out[0] == 1)),
              op, "expected contiguous planes of one dtype, (P, ", r.in[0], ", ", r.in[1],
              ") in and (P, ", r.out[0], ", ", r.out[1], ") out over ", r.dims,
              " spatial dims, got ", planes.sizes(), " and ", out.sizes());
  kernels::ResizeLaunch l{};
  l.pass = backward ? kernels::ResizeLaunch::backward_pass : kernels::ResizeLaunch::forward_pass;
  switch (r.mode) {
    case backend::ResizeMode::Nearest:
      l.mode = kernels::ResizeLaunch::nearest;
      break;
    case backend::ResizeMode::NearestExact:
      l.mode = kernels::ResizeLaunch::nearest_exact;
      break;
    case backend::ResizeMode::Linear:
      l.mode = kernels::ResizeLaunch::linear;
      break;
  }
  l.type = storage_type(planes.dtype(), op);
  l.align_corners = r.align_corners;
  l.dims = r.dims;
  l.P = P;
  for (int k = 0; k < 2; ++k) {
    l.in[k] = r.in[k];
    l.out[k] = r.out[k];
    l.scale[k] = r.scale[k] && *r.scale[k] > 0 ? *r.scale[k] : 0.0;  // the CPU's scale_value
  }
  l.src = static_cast<const char*>(planes.data_ptr());
  l.dst = static_cast<char*>(out.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(out.numel());
  return l;
}

kernels::PadLaunch plan_pad_launch(const Tensor& out, const Tensor& input,
                                   const backend::PadParams& p, bool backward) {
  const char* op = backward ? "pad_backward" : "pad";
  // The front end hands the tensors in their own shapes: p's planes are their elements.
  const Tensor& in = backward ? out : input;
  const Tensor& padded = backward ? input : out;
  EMBER_CHECK(input.is_contiguous() && out.is_contiguous() && out.dtype() == input.dtype() &&
                  in.numel() == p.planes * p.in[0] * p.in[1] * p.in[2] &&
                  padded.numel() == p.planes * p.out[0] * p.out[1] * p.out[2] &&
                  p.out[0] == p.in[0] + p.left[0] + p.right[0] &&
                  p.out[1] == p.in[1] + p.left[1] + p.right[1] &&
                  p.out[2] == p.in[2] + p.left[2] + p.right[2],
              op, "expected contiguous tensors of one dtype holding ", p.planes, " planes of (",
              p.in[0], ", ", p.in[1], ", ", p.in[2], ") in and of (", p.out[0], ", ", p.out[1],
              ", ", p.out[2], ") out, got ", in.sizes(), " and ", padded.sizes());
  kernels::PadLaunch l{};
  l.pass = backward ? kernels::PadLaunch::backward_pass : kernels::PadLaunch::forward_pass;
  switch (p.mode) {
    case backend::PadMode::Reflect:
      l.mode = kernels::PadLaunch::reflect;
      break;
    case backend::PadMode::Replicate:
      l.mode = kernels::PadLaunch::replicate;
      break;
    case backend::PadMode::Circular:
      l.mode = kernels::PadLaunch::circular;
      break;
  }
  if (backward) {
    EMBER_CHECK(input.is_floating_point(), op, "the cuda backend has no ",
                dtype_name(input.dtype()), " kernel yet");
    l.type = storage_type(input.dtype(), op);
  }
  l.itemsize = int32_t(input.element_size());
  l.planes = p.planes;
  for (int k = 0; k < 3; ++k) {
    l.in[k] = p.in[k];
    l.out[k] = p.out[k];
    l.left[k] = p.left[k];
    l.right[k] = p.right[k];
  }
  l.src = static_cast<const char*>(input.data_ptr());
  l.dst = static_cast<char*>(out.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(out.numel());
  return l;
}

}  // namespace ember::cuda
