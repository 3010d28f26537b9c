// The host side of the CUDA convolution: the kCUDA backend's conv2d, conv2d_adjoint and
// conv2d_weight_grad entries, run by conv_plan.cpp's im2col + GEMM driver (tested in every build
// with the emulated column kernels and the CPU's gemm) with the CUDA backend's cuBLAS gemm and
// conv.cu's column kernel, on the current stream of the operands' device.
#include "backend/backend.h"
#include "backend/cuda/conv_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using backend::Conv2dParams;

ConvSteps device_steps(Device device, const char* op) {
  return {backend::backend_for(kCUDA)->linalg.gemm, [device, op](const kernels::Im2colLaunch& l) {
            launch_on(device, op, &kernels::launch_im2col, l);
          }};
}

void conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out,
            const Conv2dParams& p) {
  conv2d_by_gemm(device_steps(input.device(), "conv2d"), input, weight, bias, out, p);
}

void conv2d_adjoint(const Tensor& grad, const Tensor& weight, const Tensor& bias, const Tensor& out,
                    const Conv2dParams& p) {
  conv2d_adjoint_by_gemm(device_steps(grad.device(), "conv2d_adjoint"), grad, weight, bias, out, p);
}

void conv2d_weight_grad(const Tensor& grad, const Tensor& input, const Tensor& grad_weight,
                        const Conv2dParams& p) {
  conv2d_weight_grad_by_gemm(device_steps(grad.device(), "conv2d_weight_grad"), grad, input,
                             grad_weight, p);
}

}  // namespace

void install_conv_kernels(backend::Backend& b) {
  b.conv.conv2d = &conv2d;
  b.conv.conv2d_adjoint = &conv2d_adjoint;
  b.conv.conv2d_weight_grad = &conv2d_weight_grad;
}

}  // namespace ember::cuda
