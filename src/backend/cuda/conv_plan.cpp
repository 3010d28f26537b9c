// See conv_plan.h.
#include "backend/cuda/conv_plan.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {
namespace {

using backend::Conv2dParams;

/// Images per chunk: as many as keep their columns (G K L elements each) within the budget, at
/// least one.
int64_t images_per_chunk(const ConvSteps& steps, const ConvShape& s, int64_t item_size) {
  const int64_t per_image = std::max<int64_t>(1, s.G * s.K() * s.L() * item_size);
  return std::clamp<int64_t>(steps.col_bytes / per_image, 1, std::max<int64_t>(s.N, 1));
}

}  // namespace

ConvShape conv_shape(const char* op, const Tensor& input, const Tensor& weight, const Tensor& out,
                     const Conv2dParams& p) {
  EMBER_CHECK(input.is_floating_point(), op, "the cuda backend has no ", dtype_name(input.dtype()),
              " kernel yet");
  EMBER_CHECK(input.dim() == 4 && weight.dim() == 4 && out.dim() == 4 && input.is_contiguous() &&
                  weight.is_contiguous() && out.is_contiguous() &&
                  weight.dtype() == input.dtype() && out.dtype() == input.dtype(),
              op,
              "expected contiguous input (N, C, H, W), weight (O, C / groups, kH, kW) and output "
              "(N, O, Ho, Wo) of one dtype, got ",
              input.sizes(), " ", input.dtype(), ", ", weight.sizes(), " ", weight.dtype(), " and ",
              out.sizes(), " ", out.dtype());
  const ConvShape s{input.size(0),  input.size(1),  input.size(2), input.size(3), weight.size(0),
                    weight.size(2), weight.size(3), out.size(2),   out.size(3),   p.groups};
  EMBER_CHECK(s.G > 0 && s.C % s.G == 0 && s.O % s.G == 0 && weight.size(1) * s.G == s.C &&
                  out.size(0) == s.N && out.size(1) == s.O,
              op, "expected ", s.G, " groups to divide the input's channels and the weight's ",
              "outputs, got input ", input.sizes(), ", weight ", weight.sizes(), " and output ",
              out.sizes());
  return s;
}

kernels::Im2colLaunch plan_im2col_launch(const ConvShape& s, const Conv2dParams& p,
                                         const Tensor& images, const Tensor& col,
                                         const std::array<int64_t, 3>& col_stride, bool col2im,
                                         const Tensor& bias) {
  const char* op = col2im ? "col2im" : "im2col";
  const int64_t n = images.size(0);
  EMBER_CHECK(images.dim() == 4 && images.is_contiguous() && images.size(1) == s.C &&
                  images.size(2) == s.H && images.size(3) == s.W && col.is_contiguous() &&
                  col.numel() == n * s.G * s.K() * s.L() && col.dtype() == images.dtype() &&
                  (!bias.defined() || (col2im && bias.is_contiguous() && bias.numel() == s.C &&
                                       bias.dtype() == images.dtype())),
              op, "expected contiguous images (n, ", s.C, ", ", s.H, ", ", s.W, "), their ",
              s.G * s.K() * s.L(), " column elements per image and a bias of ", s.C,
              " (col2im only), got ", images.sizes(), " and ", col.sizes());
  kernels::Im2colLaunch l{};
  l.pass = col2im ? kernels::Im2colLaunch::col2im : kernels::Im2colLaunch::im2col;
  l.type = storage_type(images.dtype(), op);
  l.N = n, l.C = s.C, l.H = s.H, l.W = s.W, l.groups = s.G, l.Ho = s.Ho, l.Wo = s.Wo;
  l.kernel[0] = s.kh, l.kernel[1] = s.kw;
  for (int k = 0; k < 2; ++k) {
    l.stride[k] = p.stride[k];
    l.padding[k] = p.padding[k];
    l.dilation[k] = p.dilation[k];
  }
  for (int k = 0; k < 3; ++k) l.col_stride[k] = col_stride[size_t(k)];
  l.in = static_cast<const char*>(col2im ? col.data_ptr() : images.data_ptr());
  l.out = static_cast<char*>(col2im ? images.data_ptr() : col.data_ptr());
  l.bias = data_or_null<const char>(bias);
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(col2im ? images.numel() : col.numel());
  return l;
}

void conv2d_by_gemm(const ConvSteps& steps, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, const Tensor& out, const Conv2dParams& p) {
  const ConvShape s = conv_shape("conv2d", input, weight, out, p);
  if (out.numel() == 0) return;
  const int64_t G = s.G, Og = s.O / G, K = s.K(), L = s.L();
  Tensor o = out;  // a handle: written in place
  if (bias.defined()) {
    EMBER_CHECK(bias.numel() == s.O && bias.dtype() == out.dtype(), "conv2d", "expected a bias of ",
                s.O, " ", out.dtype(), ", got ", bias.sizes(), " ", bias.dtype());
    o.copy_(bias.reshape({1, s.O, 1, 1}).expand(out.sizes()));
  }
  const Scalar beta = bias.defined() ? 1.0 : 0.0;
  // A 1x1 kernel of stride 1 and no padding: the images are their own columns.
  const bool pointwise = s.kh == 1 && s.kw == 1 && p.stride[0] == 1 && p.stride[1] == 1 &&
                         p.padding[0] == 0 && p.padding[1] == 0;
  const int64_t chunk = images_per_chunk(steps, s, input.element_size());
  const Tensor col =
      pointwise ? Tensor()
                : backend::new_buffer({chunk, G, K, L}, input.dtype(), input.device(), "conv2d");
  const Tensor w = weight.view({G, Og, K});
  for (int64_t n0 = 0; n0 < s.N; n0 += chunk) {
    const int64_t nc = std::min(chunk, s.N - n0);
    const Tensor images = input.narrow(0, n0, nc);
    const Tensor cols = pointwise ? images.view({nc, G, K, L}) : col.narrow(0, 0, nc);
    if (!pointwise)
      steps.columns(plan_im2col_launch(s, p, images, cols, {G * K * L, K * L, L}, false));
    const Tensor out_c = out.narrow(0, n0, nc).view({nc, G, Og, L});
    for (int64_t g = 0; g < G; ++g)  // the group's weights, broadcast over the chunk's images
      steps.gemm(w.select(0, g).unsqueeze(0).expand({nc, Og, K}), cols.select(1, g),
                 out_c.select(1, g), 1.0, beta);
  }
}

void conv2d_adjoint_by_gemm(const ConvSteps& steps, const Tensor& grad, const Tensor& weight,
                            const Tensor& bias, const Tensor& out, const Conv2dParams& p) {
  const ConvShape s = conv_shape("conv2d_adjoint", out, weight, grad, p);
  if (out.numel() == 0) return;
  const int64_t G = s.G, Og = s.O / G, K = s.K(), L = s.L();
  const int64_t chunk = images_per_chunk(steps, s, out.element_size());
  const Tensor col =
      backend::new_buffer({chunk, G, K, L}, out.dtype(), out.device(), "conv2d_adjoint");
  const Tensor w = weight.view({G, Og, K});
  for (int64_t n0 = 0; n0 < s.N; n0 += chunk) {
    const int64_t nc = std::min(chunk, s.N - n0);
    const Tensor cols = col.narrow(0, 0, nc);
    const Tensor grad_c = grad.narrow(0, n0, nc).view({nc, G, Og, L});
    for (int64_t g = 0; g < G; ++g)  // w[g]^T: its columns contiguous, which cuBLAS reads as "T"
      steps.gemm(w.select(0, g).t().unsqueeze(0).expand({nc, K, Og}), grad_c.select(1, g),
                 cols.select(1, g), 1.0, 0.0);
    steps.columns(
        plan_im2col_launch(s, p, out.narrow(0, n0, nc), cols, {G * K * L, K * L, L}, true, bias));
  }
}

void conv2d_weight_grad_by_gemm(const ConvSteps& steps, const Tensor& grad, const Tensor& input,
                                const Tensor& grad_weight, const Conv2dParams& p) {
  const ConvShape s = conv_shape("conv2d_weight_grad", input, grad_weight, grad, p);
  if (grad_weight.numel() == 0) return;
  Tensor gw = grad_weight;  // a handle: written in place
  if (s.N * s.L() == 0) {   // an empty sum
    gw.zero_();
    return;
  }
  const int64_t G = s.G, Og = s.O / G, K = s.K(), L = s.L();
  const int64_t chunk = images_per_chunk(steps, s, input.element_size());
  const Tensor col =
      backend::new_buffer({chunk * G * K * L}, input.dtype(), input.device(), "conv2d_weight_grad");
  for (int64_t n0 = 0; n0 < s.N; n0 += chunk) {
    const int64_t nc = std::min(chunk, s.N - n0);
    // Columns (G, K, nc, L): a group's rows run over the chunk's images and positions at once.
    const Tensor cols = col.narrow(0, 0, G * K * nc * L).view({G, K, nc * L});
    steps.columns(
        plan_im2col_launch(s, p, input.narrow(0, n0, nc), cols, {L, K * nc * L, nc * L}, false));
    const Tensor grad_c = grad.narrow(0, n0, nc)
                              .view({nc, G, Og, L})
                              .permute({1, 2, 0, 3})
                              .contiguous()
                              .view({G, Og, nc * L});
    steps.gemm(grad_c, cols.transpose(1, 2), gw.view({G, Og, K}), 1.0, n0 == 0 ? 0.0 : 1.0);
  }
}

}  // namespace ember::cuda
