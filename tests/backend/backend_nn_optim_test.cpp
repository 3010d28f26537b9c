// The backend seam for convolution, pooling, matrix products, rearrangements, resizing and the
// optimizers' updates: a fake device without a family's kernel is refused by the op's name
// before anything runs, tensors on two devices are refused by the shared front end, and an op
// runs the fake device's own kernel (src/ops never touching its memory).
#include <ember/creation.h>
#include <ember/index_ops.h>
#include <ember/linalg.h>
#include <ember/nn/functional/conv.h>
#include <ember/optim/adam.h>
#include <ember/optim/rmsprop.h>
#include <ember/optim/sgd.h>

#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/fake_device.h"
#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::FakeDevice;
using test::kFakeDevice;

using test::kMissing;

// ── convolution ───────────────────────────────────────────────────────────────────────────

TEST(BackendConv, ConvolutionsWithoutTheirKernelsAreRefusedByName) {
  FakeDevice fake;
  const Tensor x = FakeDevice::tensor<float>(std::vector<float>(9, 1)).view({1, 1, 3, 3});
  const Tensor w = FakeDevice::tensor<float>(std::vector<float>(4, 1)).view({1, 1, 2, 2});
  EXPECT_ERROR(F::conv2d(x, w), "[conv2d] " + kMissing);
  EXPECT_ERROR(F::conv1d(x.view({1, 3, 3}), FakeDevice::tensor<float>({1, 1, 1}).view({1, 3, 1})),
               "[conv1d] " + kMissing);
  EXPECT_ERROR(F::conv_transpose2d(x, w), "[conv_transpose2d] " + kMissing);
  const Tensor g = FakeDevice::tensor<float>(std::vector<float>(4, 1)).view({1, 1, 2, 2});
  EXPECT_ERROR(F::conv2d_backward(g, x, w), "[conv2d_backward] " + kMissing);
}

TEST(BackendConv, OperandsOnTwoDevicesAreRefusedByName) {
  FakeDevice fake;
  const Tensor w = FakeDevice::tensor<float>(std::vector<float>(4, 1)).view({1, 1, 2, 2});
  EXPECT_ERROR(F::conv2d(ones({1, 1, 3, 3}), w),
               "[conv2d] expected all tensors on one device, got cpu and cuda:0");
  EXPECT_ERROR(F::conv2d_backward(ones({1, 1, 2, 2}), ones({1, 1, 3, 3}), w),
               "[conv2d_backward] expected all tensors on one device, got cpu and cuda:0");
}

// ── pooling ───────────────────────────────────────────────────────────────────────────────

TEST(BackendPool, PoolsWithoutTheirKernelsAreRefusedByName) {
  FakeDevice fake;
  const Tensor x = FakeDevice::tensor<float>(std::vector<float>(16, 1)).view({1, 4, 4});
  EXPECT_ERROR(F::max_pool2d(x, 2), "[max_pool2d] " + kMissing);
  EXPECT_ERROR(F::max_pool1d(x, 2), "[max_pool1d] " + kMissing);
  EXPECT_ERROR(F::avg_pool2d(x, 2), "[avg_pool2d] " + kMissing);
  EXPECT_ERROR(F::adaptive_avg_pool2d(x, 1), "[adaptive_avg_pool2d] " + kMissing);
  EXPECT_ERROR(F::adaptive_max_pool2d(x, 1), "[adaptive_max_pool2d] " + kMissing);
  const Tensor g = FakeDevice::tensor<float>(std::vector<float>(4, 1)).view({1, 2, 2});
  EXPECT_ERROR(F::avg_pool2d_backward(g, x, 2), "[avg_pool2d_backward] " + kMissing);
  EXPECT_ERROR(F::adaptive_avg_pool2d_backward(g, x), "[adaptive_avg_pool2d_backward] " + kMissing);
  EXPECT_ERROR(F::avg_pool2d_backward(ones({1, 2, 2}), x, 2),
               "[avg_pool2d_backward] expected all tensors on one device, got cpu and cuda:0");
}

// The fake kernel sums each plane: enough to see the front end hand it (P, H, W) planes and
// shape its (P, 1, 1) output back to the caller's dims.
void fake_adaptive_avg(const Tensor& input, const Tensor& out) {
  FakeDevice::calls().push_back("adaptive_avg_pool2d");
  const int64_t plane = input.size(1) * input.size(2);
  for (int64_t p = 0; p < input.size(0); ++p) {
    float s = 0;
    for (int64_t i = 0; i < plane; ++i) s += FakeDevice::data<float>(input)[p * plane + i];
    FakeDevice::data<float>(out)[p] = s / float(plane);
  }
}

TEST(BackendPool, PoolsRunTheKernelsOfTheirDevice) {
  FakeDevice fake;
  fake.table.pool.adaptive_avg_pool2d = &fake_adaptive_avg;
  const Tensor x = FakeDevice::tensor<float>({1, 2, 3, 4, 5, 6, 7, 8}).view({2, 2, 2});
  const Tensor y = F::adaptive_avg_pool2d(x, 1);
  EXPECT_EQ(y.device(), kFakeDevice);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 1, 1}));
  EXPECT_EQ(FakeDevice::values<float>(y), (std::vector<float>{2.5f, 6.5f}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"adaptive_avg_pool2d"}));
}

// ── matrix products ───────────────────────────────────────────────────────────────────────

TEST(BackendLinalg, ProductsWithoutTheGemmKernelAreRefusedByName) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor<float>({1, 2, 3, 4}).view({2, 2});
  const Tensor v = FakeDevice::tensor<float>({1, 2});
  EXPECT_ERROR(mm(a, a), "[mm] " + kMissing);
  EXPECT_ERROR(bmm(a.view({1, 2, 2}), a.view({1, 2, 2})), "[bmm] " + kMissing);
  EXPECT_ERROR(mv(a, v), "[mv] " + kMissing);
  EXPECT_ERROR(dot(v, v), "[dot] " + kMissing);
  EXPECT_ERROR(linear(a, a), "[linear] " + kMissing);
}

TEST(BackendLinalg, OperandsOnTwoDevicesAreRefusedByName) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor<float>({1, 2, 3, 4}).view({2, 2});
  EXPECT_ERROR(mm(a, eye(2)), "[mm] expected all tensors on one device, got cuda:0 and cpu");
  EXPECT_ERROR(linear(eye(2), a),
               "[linear] expected all tensors on one device, got cpu and cuda:0");
}

// c = beta c + alpha a @ b for the contiguous (B, M, K) @ (B, K, N) operands the test gives.
void fake_gemm(const Tensor& a, const Tensor& b, const Tensor& c, Scalar alpha, Scalar beta) {
  FakeDevice::calls().push_back("gemm");
  const int64_t B = c.size(0), M = c.size(1), N = c.size(2), K = a.size(2);
  const float* x = FakeDevice::data<float>(a);
  const float* y = FakeDevice::data<float>(b);
  float* z = FakeDevice::data<float>(c);
  for (int64_t i = 0; i < B * M * N; ++i) {
    const int64_t n = i % N, m = i / N % M, bi = i / (M * N);
    float s = 0;
    for (int64_t k = 0; k < K; ++k)
      s += x[a.stride(0) * bi + a.stride(1) * m + a.stride(2) * k] *
           y[b.stride(0) * bi + b.stride(1) * k + b.stride(2) * n];
    const float kept = beta.to_double() == 0 ? 0.0f : float(beta.to_double()) * z[i];
    z[i] = kept + float(alpha.to_double()) * s;
  }
}

TEST(BackendLinalg, ProductsRunTheGemmOfTheirDevice) {
  FakeDevice fake;
  fake.table.linalg.gemm = &fake_gemm;
  const Tensor a = FakeDevice::tensor<float>({1, 2, 3, 4}).view({2, 2});
  const Tensor b = FakeDevice::tensor<float>({5, 6, 7, 8}).view({2, 2});
  const Tensor c = mm(a, b);
  EXPECT_EQ(c.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(c), (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"gemm"}));
}

// ── rearranging ───────────────────────────────────────────────────────────────────────────

TEST(BackendRearrange, RearrangingOpsWithoutTheirKernelsAreRefusedByName) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({3, 1, 2, 4});
  const Tensor i = FakeDevice::tensor<int64_t>({2, 0, 1});
  EXPECT_ERROR(flip(t, {0}), "[flip] " + kMissing);
  EXPECT_ERROR(tril(t.view({2, 2})), "[tril] " + kMissing);
  EXPECT_ERROR(triu(t.view({2, 2})), "[triu] " + kMissing);
  EXPECT_ERROR(trace(t.view({2, 2})), "[trace] " + kMissing);
  EXPECT_ERROR(repeat_interleave(i), "[repeat_interleave] " + kMissing);
  EXPECT_ERROR(one_hot(i), "[one_hot] " + kMissing);
  EXPECT_ERROR(searchsorted(t, t), "[searchsorted] " + kMissing);
  EXPECT_ERROR(unique(t), "[unique] " + kMissing);
  EXPECT_ERROR(unique(t.view({2, 2}), {.dim = 0}), "[unique] " + kMissing);
  EXPECT_EQ(FakeDevice::values<float>(t), (std::vector<float>{3, 1, 2, 4}));  // nothing written
}

TEST(BackendRearrange, OperandsOnTwoDevicesAreRefusedByName) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({1, 2, 3});
  EXPECT_ERROR(searchsorted(tensor({0.5f, 2.5f}), t),
               "[searchsorted] expected all tensors on one device, got cpu and cuda:0");
}

void fake_flip(const Tensor& out, const Tensor& self, IntArrayRef dims) {
  FakeDevice::calls().push_back("flip");
  ASSERT_EQ(dims, IntArrayRef({0}));
  const int64_t n = self.numel();
  for (int64_t j = 0; j < n; ++j)
    FakeDevice::data<float>(out)[j] = FakeDevice::data<float>(self)[n - 1 - j];
}

TEST(BackendRearrange, FlipRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.rearrange.flip = &fake_flip;
  const Tensor f = flip(FakeDevice::tensor<float>({1, 2, 3}), {-1});
  EXPECT_EQ(f.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(f), (std::vector<float>{3, 2, 1}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"flip"}));
}

// ── resizing ──────────────────────────────────────────────────────────────────────────────

TEST(BackendResize, InterpolateAndPadWithoutTheirKernelsAreRefusedByName) {
  FakeDevice fake;
  const Tensor x = FakeDevice::tensor<float>({1, 2, 3, 4}).view({1, 1, 4});
  EXPECT_ERROR(F::interpolate(x, {.size = 8}), "[interpolate] " + kMissing);
  EXPECT_ERROR(F::interpolate_backward(x, {1, 1, 2}, {.size = 4}),
               "[interpolate_backward] " + kMissing);
  EXPECT_ERROR(F::pad(x, {1, 1}, {.mode = "reflect"}), "[pad] " + kMissing);
  EXPECT_ERROR(F::pad_backward(x, {1, 1, 2}, {1, 1}, {.mode = "replicate"}),
               "[pad_backward] " + kMissing);
}

// ── Tensor::equal ─────────────────────────────────────────────────────────────────────────

TEST(BackendCopy, EqualWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({1, 2});
  EXPECT_ERROR(t.equal(t), "[equal] " + kMissing);
}

// ── optimizers ────────────────────────────────────────────────────────────────────────────

// The state buffers start as zeros (or Adagrad's initial value): the fake device can zero and
// fill.
void fake_fill(const Tensor& dst, Scalar value) {
  for (int64_t j = 0; j < dst.numel(); ++j) FakeDevice::data<float>(dst)[j] = value.to<float>();
}
void fake_zero(const Tensor& dst) { fake_fill(dst, 0); }

// A fake device whose only kernels make the optimizers' state.
struct FakeStateDevice : FakeDevice {
  FakeStateDevice() {
    table.fill = &fake_fill;
    table.creation.zero = &fake_zero;
  }
};

// A parameter on the fake device with a gradient there (or on `grad_device`).
Tensor fake_param(Device grad_device = kFakeDevice) {
  Tensor p = FakeDevice::tensor<float>({1, 2});
  p.mutable_grad() =
      grad_device == kFakeDevice ? FakeDevice::tensor<float>({0.5f, 0.5f}) : tensor({0.5f, 0.5f});
  return p;
}

// One step of an optimizer over one such parameter.
template <class Optimizer, class Options>
void step(const Options& options, Device grad_device = kFakeDevice) {
  Tensor p = fake_param(grad_device);
  Optimizer opt({p}, options);
  opt.step();
}

TEST(BackendOptim, UpdatesWithoutTheirKernelsAreRefusedByName) {
  FakeStateDevice fake;
  EXPECT_ERROR((step<optim::SGD>(optim::SGDOptions{.lr = 0.1, .momentum = 0.9})),
               "[optim.SGD] " + kMissing);
  EXPECT_ERROR((step<optim::Adam>(optim::AdamOptions{})), "[optim.Adam] " + kMissing);
  EXPECT_ERROR((step<optim::AdamW>(optim::AdamWOptions{.amsgrad = true})),
               "[optim.AdamW] " + kMissing);
  EXPECT_ERROR((step<optim::Adamax>(optim::AdamaxOptions{})), "[optim.Adamax] " + kMissing);
  EXPECT_ERROR((step<optim::NAdam>(optim::NAdamOptions{})), "[optim.NAdam] " + kMissing);
  EXPECT_ERROR((step<optim::RAdam>(optim::RAdamOptions{})), "[optim.RAdam] " + kMissing);
  EXPECT_ERROR((step<optim::RMSprop>(optim::RMSpropOptions{.momentum = 0.5, .centered = true})),
               "[optim.RMSprop] " + kMissing);
  EXPECT_ERROR((step<optim::Adagrad>(optim::AdagradOptions{})), "[optim.Adagrad] " + kMissing);
}

TEST(BackendOptim, AGradientOnAnotherDeviceIsRefusedByName) {
  FakeStateDevice fake;
  EXPECT_ERROR((step<optim::AdamW>(optim::AdamWOptions{}, kCPU)),
               "[optim.AdamW] expected all tensors on one device, got cuda:0 and cpu");
  EXPECT_ERROR((step<optim::Adagrad>(optim::AdagradOptions{}, kCPU)),
               "[optim.Adagrad] expected all tensors on one device, got cuda:0 and cpu");
}

void fake_sgd(const Tensor& p, const Tensor& g, const Tensor& buf, const backend::SgdStep& s) {
  FakeDevice::calls().push_back(buf.defined() ? "sgd with momentum" : "sgd");
  for (int64_t j = 0; j < p.numel(); ++j)
    FakeDevice::data<float>(p)[j] -= float(s.lr) * FakeDevice::data<float>(g)[j];
}

TEST(BackendOptim, SgdRunsTheUpdateOfItsDevice) {
  FakeDevice fake;
  fake.table.optim.sgd = &fake_sgd;
  Tensor p = fake_param();
  optim::SGD opt({p}, {.lr = 0.5});
  opt.step();
  EXPECT_EQ(FakeDevice::values<float>(p), (std::vector<float>{0.75f, 1.75f}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"sgd"}));
}

// ── host access ───────────────────────────────────────────────────────────────────────────

TEST(BackendDataPtr, HostAccessToTheElementsOfAnotherDeviceIsRefused) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({1, 2});
  const std::string refused = "[data_ptr] host access to the elements of a tensor on cuda:0";
  EXPECT_ERROR(t.data_ptr(), refused);
  EXPECT_ERROR(t.data_ptr<float>(), refused);
  EXPECT_ERROR(t.narrow(0, 1, 1).data_ptr(), refused);
  // A backend reaches its own memory through the impl; CPU tensors keep data_ptr().
  EXPECT_EQ(t.impl()->data(), static_cast<void*>(FakeDevice::data<float>(t)));
  const Tensor c = ones({2});
  EXPECT_EQ(c.data_ptr(), static_cast<void*>(c.data_ptr<float>()));
  EXPECT_ERROR(Tensor().data_ptr(), "[data_ptr] called on an undefined tensor");
}

}  // namespace
}  // namespace ember
