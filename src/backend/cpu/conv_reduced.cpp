// float16/bfloat16 convolution on the CPU: the float32 kernels of conv.cpp run on chunks of
// images widened on the fly, and each chunk's result is rounded straight into the output.
#include <omp.h>

#include <algorithm>
#include <array>

#include "backend/buffers.h"
#include "backend/cpu/conv.h"
#include "backend/cpu/half_convert.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// Note [Reduced-precision convolution]
// float16/bfloat16 convolutions accumulate in float32 and round each output once, as PyTorch's
// CPU kernels do; this CPU (no AVX512-BF16/AMX) has no faster 16-bit arithmetic. Converting
// whole tensors around the float32 kernel (what src/ops/conv.cpp used to do) costs a float32
// copy of every activation, a pass over memory to write it and one to read it back: about 6% of
// a bfloat16 training step. Instead the batch goes through in chunks of images small enough
// for a core's L2 (kChunkFloats): a chunk is widened into a float32 buffer, the float32 kernel
// (im2col/flat/direct, unchanged) reads it from cache, and its output is rounded into the
// 16-bit result while still in cache. The weight and bias are widened once per call (O * K
// elements, small next to the activations). Runs of whole images go to threads exactly where
// the float32 kernels would split images (the kernel then runs single-threaded on each chunk);
// otherwise chunks run in turn and the kernel threads inside each, as it does for few images.
// The weight gradient sums the chunks' float32 partial gradients and rounds once at the end.
constexpr int64_t kChunkFloats = int64_t(1) << 18;  // 1 MiB of float32 per chunk and thread

bool is_bf16(const Tensor& t) { return t.dtype() == kBFloat16; }

// dst[0, n) = float(t's elements [begin, begin + n)); t is contiguous float16/bfloat16.
void widen(const Tensor& t, int64_t begin, int64_t n, float* dst) {
  if (is_bf16(t))
    to_float(static_cast<const BFloat16*>(t.data_ptr()) + begin, dst, n);
  else
    to_float(static_cast<const Half*>(t.data_ptr()) + begin, dst, n);
}

// t's elements [begin, begin + n) = src[0, n) rounded to t's dtype.
void round_into(const float* src, const Tensor& t, int64_t begin, int64_t n) {
  if (is_bf16(t))
    from_float(src, static_cast<BFloat16*>(t.data_ptr()) + begin, n);
  else
    from_float(src, static_cast<Half*>(t.data_ptr()) + begin, n);
}

// A float32 copy of a small operand (weight, bias); undefined stays undefined.
Tensor widened(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor f = backend::new_buffer(t.sizes(), kFloat32);
  widen(t, 0, t.numel(), f.data_ptr<float>());
  return f;
}

int64_t per_image(const Tensor& t) { return t.size(0) ? t.numel() / t.size(0) : 0; }

// A float32 buffer for images [n0, n1) of the (N, C, H, W) tensor t.
Tensor float_images(const Tensor& t, int64_t n0, int64_t n1) {
  return backend::new_buffer({n1 - n0, t.size(1), t.size(2), t.size(3)}, kFloat32);
}

// Images [n0, n1) of t, widened into a fresh float32 tensor.
Tensor widened_images(const Tensor& t, int64_t n0, int64_t n1) {
  Tensor f = float_images(t, n0, n1);
  widen(t, n0 * per_image(t), f.numel(), f.data_ptr<float>());
  return f;
}

// Calls body(n0, n1) on chunks of at most kChunkFloats / floats_per_image images (at least one).
template <class F>
void for_chunks(int64_t N, int64_t floats_per_image, const F& body) {
  const int64_t chunk =
      std::clamp<int64_t>(kChunkFloats / std::max<int64_t>(floats_per_image, 1), 1,
                          std::max<int64_t>(N, 1));
  auto run = [&](int64_t b, int64_t e) {
    for (int64_t n0 = b; n0 < e; n0 += chunk) body(n0, std::min(e, n0 + chunk));
  };
  if (split_images(N))
    parallel_for(0, N, 1, run);
  else
    run(0, N);
}

// out = kernel(in, weight, bias) where in and out are (N, ...) with one image of out per image
// of in: conv2d and its adjoint.
using ImageKernel = void (*)(const Tensor& in, const Tensor& weight, const Tensor& bias,
                             const Tensor& out, const Conv2dParams& p);

void image_chunks(ImageKernel kernel, const Tensor& in, const Tensor& weight, const Tensor& bias,
                  const Tensor& out, const Conv2dParams& p) {
  const Tensor wf = widened(weight), bf = widened(bias);
  for_chunks(in.size(0), per_image(in) + per_image(out), [&](int64_t n0, int64_t n1) {
    const Tensor of = float_images(out, n0, n1);
    kernel(widened_images(in, n0, n1), wf, bf, of, p);
    round_into(of.data_ptr<float>(), out, n0 * per_image(out), of.numel());
  });
}

}  // namespace

bool is_reduced_conv(const Tensor& t) {
  return t.dtype() == kBFloat16 || t.dtype() == kFloat16;
}

void conv2d_reduced(const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const Tensor& out, const Conv2dParams& p) {
  image_chunks(&conv2d, input, weight, bias, out, p);
}

void conv2d_adjoint_reduced(const Tensor& grad, const Tensor& weight, const Tensor& bias,
                            const Tensor& out, const Conv2dParams& p) {
  image_chunks(&conv2d_adjoint, grad, weight, bias, out, p);
}

void conv2d_weight_grad_reduced(const Tensor& grad, const Tensor& input,
                                const Tensor& grad_weight, const Conv2dParams& p) {
  const int64_t N = grad.size(0), size = grad_weight.numel();
  // One float32 sum per thread that takes images (see for_chunks), added up at the end.
  const int threads = split_images(N) ? get_num_threads() : 1;
  Tensor sums = backend::new_zeros({threads, size}, kFloat32);
  float* all = sums.data_ptr<float>();
  for_chunks(N, per_image(grad) + per_image(input), [&](int64_t n0, int64_t n1) {
    const Tensor part = backend::new_buffer(grad_weight.sizes(), kFloat32);
    conv2d_weight_grad(widened_images(grad, n0, n1), widened_images(input, n0, n1), part, p);
    float* sum = all + (threads > 1 ? omp_get_thread_num() : 0) * size;
    const float* x = part.data_ptr<float>();
    for (int64_t i = 0; i < size; ++i) sum[i] += x[i];
  });
  for (int t = 1; t < threads; ++t)
    for (int64_t i = 0; i < size; ++i) all[i] += all[t * size + i];
  round_into(all, grad_weight, 0, size);
}

}  // namespace EMBER_CPU_NS
