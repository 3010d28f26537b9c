// The host side of the CUDA resizing family: the kCUDA backend's interpolate, pad and their
// backward entries. Each plans its launch (resize_plan.cpp, tested in every build with the
// emulated kernels) and queues resize.cu's kernel on the current stream of the tensors' device.
// The backward kernels gather (Note [Resize backward as a gather] in resize_body.cuh), so
// grad_input needs no zeroing and the results are the same on every run.
#include "backend/backend.h"
#include "backend/cuda/resize_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void resize(const char* op, const Tensor& out, const Tensor& planes, const backend::ResizeParams& r,
            bool backward) {
  const kernels::ResizeLaunch l = plan_resize_launch(out, planes, r, backward);
  if (out.numel() > 0) launch_on(out.device(), op, &kernels::launch_resize, l);
}

void interpolate(const Tensor& out, const Tensor& input, const backend::ResizeParams& r) {
  resize("interpolate", out, input, r, false);
}
void interpolate_backward(const Tensor& grad_input, const Tensor& grad,
                          const backend::ResizeParams& r) {
  resize("interpolate_backward", grad_input, grad, r, true);
}

void pad_any(const char* op, const Tensor& out, const Tensor& input, const backend::PadParams& p,
             bool backward) {
  const kernels::PadLaunch l = plan_pad_launch(out, input, p, backward);
  if (out.numel() > 0) launch_on(out.device(), op, &kernels::launch_pad, l);
}

void pad(const Tensor& out, const Tensor& input, const backend::PadParams& p) {
  pad_any("pad", out, input, p, false);
}
void pad_backward(const Tensor& grad_input, const Tensor& grad, const backend::PadParams& p) {
  pad_any("pad_backward", grad_input, grad, p, true);
}

}  // namespace

void install_resize_kernels(backend::Backend& b) {
  b.resize.interpolate = &interpolate;
  b.resize.interpolate_backward = &interpolate_backward;
  b.resize.pad = &pad;
  b.resize.pad_backward = &pad_backward;
}

}  // namespace ember::cuda
