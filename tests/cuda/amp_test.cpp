// Autocast and GradScaler on CUDA tensors. Under amp::autocast(kCUDA), PyTorch 1.13's CUDA lists
// (src/amp/policy_table.cpp, the CUDA table): the lower-precision ops give float16 (bfloat16 when
// asked) with values close to the CPU's float32 ones, the float32 ops give float32 from float16
// inputs, the promote ops the widest input dtype, and CPU tensors in the same region stay as they
// are. GradScaler over CUDA parameters (scale, backward, unscale_ with an inf injected into one
// gradient, step, update) follows the same trajectory as over CPU ones: the same skipped steps,
// scales, gradients and parameters. Skips with "no CUDA device" on a machine without one.
#include <ember/amp/autocast.h>
#include <ember/amp/grad_scaler.h>
#include <ember/ember.h>
#include <ember/nn/functional/conv.h>
#include <ember/nn/functional/layers.h>
#include <ember/nn/functional/loss.h>
#include <ember/optim.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;
namespace F = nn::functional;

/// What an op case makes of each of its (float32, CPU) inputs before running on it.
using Input = std::function<Tensor(const Tensor&)>;

struct OpCase {
  const char* name;
  std::function<Tensor(const Input&)> run;
};

/// Inputs rounded to `dtype` and moved to `device`.
Input as(Device device, Dtype dtype) {
  return [=](const Tensor& t) { return t.to(dtype).to(device); };
}

/// The lower-precision ops of the CUDA list, on float32 inputs.
std::vector<OpCase> lower_precision_ops() {
  const Tensor A = values({3, 4}, 0.7, kFloat32), B = values({4, 5}, 0.3, kFloat32);
  const Tensor bA = values({2, 3, 4}, 0.9, kFloat32), bB = values({2, 4, 5}, 0.4, kFloat32);
  const Tensor C = values({3, 5}, 0.2, kFloat32), bC = values({2, 3, 5}, 0.6, kFloat32);
  const Tensor x4 = values({2, 3, 6, 6}, 0.5, kFloat32), w4 = values({4, 3, 3, 3}, 0.8, kFloat32);
  const Tensor wt = values({3, 2, 3, 3}, 0.45, kFloat32), v = values({4}, 1.1, kFloat32);
  return {
      {"matmul", [=](const Input& in) { return matmul(in(A), in(B)); }},
      {"mm", [=](const Input& in) { return in(A).mm(in(B)); }},
      {"mv", [=](const Input& in) { return mv(in(A), in(v)); }},
      {"bmm", [=](const Input& in) { return bmm(in(bA), in(bB)); }},
      {"addmm", [=](const Input& in) { return addmm(in(C), in(A), in(B)); }},
      {"baddbmm",
       [=](const Input& in) { return baddbmm(in(bC), in(bA), in(bB)); }},
      {"linear", [=](const Input& in) { return F::linear(in(A), in(B.t())); }},
      {"conv2d",
       [=](const Input& in) { return F::conv2d(in(x4), in(w4), {.padding = 1}); }},
      {"conv_transpose2d",  // float32 under CPU autocast, the lower dtype under CUDA's
       [=](const Input& in) { return F::conv_transpose2d(in(x4), in(wt)); }},
  };
}

/// The float32 ops of the CUDA list, on float16 inputs.
std::vector<OpCase> float32_ops() {
  const Tensor A = values({3, 4}, 0.7, kFloat32), Y = values({3, 4}, 0.35, kFloat32);
  return {
      {"softmax", [=](const Input& in) { return softmax(in(A), 1); }},
      {"log_softmax", [=](const Input& in) { return log_softmax(in(A), 1); }},
      {"layer_norm",  // bfloat16 under CPU autocast, float32 under CUDA's
       [=](const Input& in) { return F::layer_norm(in(A), {4}); }},
      {"mse_loss", [=](const Input& in) { return F::mse_loss(in(A), in(Y)); }},
      {"exp", [=](const Input& in) { return exp(in(A)); }},
      {"sum", [=](const Input& in) { return in(A).sum(); }},
      {"cumsum", [=](const Input& in) { return in(A).cumsum(1); }},
  };
}

TEST(CudaAutocast, LowerPrecisionOpsRunInTheRegionsDtype) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype lower : {kFloat16, kBFloat16})
    for (const OpCase& c : lower_precision_ops()) {
      const std::string what = std::string(c.name) + " under " + dtype_name(lower);
      const Tensor want = c.run(as(kCPU, kFloat32));  // no region: float32 on the CPU
      Tensor got, cpu_in_region;
      {
        amp::autocast region(kCUDA, lower);
        got = c.run(as(gpu, kFloat32));
        cpu_in_region = c.run(as(kCPU, kFloat32));
      }
      EXPECT_EQ(got.dtype(), lower) << what;
      EXPECT_EQ(got.device(), gpu) << what;
      // A CUDA region leaves CPU tensors alone: float32, the same values.
      EXPECT_EQ(cpu_in_region.dtype(), kFloat32) << what;
      EXPECT_TRUE(cpu_in_region.equal(want)) << what;
      // The float32 result within the lower dtype's rounding of inputs and output.
      const double tol = 4 * tolerance(lower), scale = want.abs().max().item<double>();
      EXPECT_TRUE(allclose(host(got), want.to(kFloat64), tol, tol * scale))
          << what << ": largest difference "
          << (host(got) - want.to(kFloat64)).abs().max().item<double>() << " of " << scale;
    }
}

TEST(CudaAutocast, TheDefaultCudaDtypeIsFloat16) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  amp::autocast region(kCUDA);
  EXPECT_EQ(amp::get_autocast_dtype(kCUDA), kFloat16);
  EXPECT_EQ(matmul(values({3, 4}, 0.7, kFloat32).to(gpu), values({4, 2}, 0.3, kFloat32).to(gpu))
                .dtype(),
            kFloat16);
}

TEST(CudaAutocast, Float32OpsRunInFloat32) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const Dtype lower : {kFloat16, kBFloat16})
    for (const OpCase& c : float32_ops()) {
      const std::string what = std::string(c.name) + " on " + dtype_name(lower) + " inputs";
      // PyTorch casts the inputs to float32 and runs the op there: the CPU's float32 op on the
      // same (rounded) inputs.
      const Tensor want = c.run([=](const Tensor& t) { return t.to(lower).to(kFloat32); });
      Tensor got;
      {
        amp::autocast region(kCUDA, lower);
        got = c.run(as(gpu, lower));
      }
      EXPECT_EQ(got.dtype(), kFloat32) << what;
      EXPECT_TRUE(allclose(host(got), host(want), 1e-4, 1e-5))
          << what << ": largest difference " << (host(got) - host(want)).abs().max().item<double>();
      // Outside the region the op keeps its inputs' dtype.
      EXPECT_EQ(c.run(as(gpu, lower)).dtype(), lower) << what << " outside the region";
    }
}

TEST(CudaAutocast, PromoteOpsRunInTheWidestDtype) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor a16 = values({4}, 0.7, kFloat16).to(gpu), a32 = values({4}, 0.3, kFloat32).to(gpu);
  const Tensor b16 = values({4}, 0.9, kFloat16).to(gpu);
  amp::autocast region(kCUDA);
  EXPECT_EQ(dot(a16, a32).dtype(), kFloat32);  // PyTorch's dot refuses mixed dtypes outside
  EXPECT_EQ(dot(a16, b16).dtype(), kFloat16);  // all float16: the widest is float16
  EXPECT_EQ(a32.addcmul(a16, b16).dtype(), kFloat32);
  EXPECT_EQ(atan2(a16, a32).dtype(), kFloat32);
  EXPECT_EQ(atan2(a16, b16).dtype(), kFloat16);
}

// ── GradScaler ───────────────────────────────────────────────────────────────────────────────

/// One run of a small regression with SGD and a GradScaler on `device`; an inf is written into
/// the bias's gradient at step 2 and a NaN into the weight's at step 5. Per step: whether the
/// optimizer stepped, the scale after update, the unscaled gradients and the parameters (on the
/// host, float64).
struct Trajectory {
  std::vector<bool> stepped;
  std::vector<double> scales;
  std::vector<Tensor> grads, params;
};

Trajectory train(Device device) {
  const Tensor w = values({3, 4}, 0.3, kFloat32).to(device).requires_grad_();
  const Tensor b = values({3}, 0.2, kFloat32).to(device).requires_grad_();
  const Tensor x = values({8, 4}, 0.7, kFloat32).to(device);
  const Tensor y = values({8, 3}, 0.4, kFloat32).to(device);
  optim::SGD opt({w, b}, {.lr = 0.05, .momentum = 0.9});
  amp::GradScaler scaler({.init_scale = 1024.0, .growth_interval = 2});
  Trajectory t;
  for (int step = 0; step < 8; ++step) {
    opt.zero_grad();
    const Tensor loss = (matmul(x, w.t()) + b - y).pow(2).mean();
    scaler.scale(loss).backward();
    {
      NoGradGuard no_grad;
      if (step == 2) b.grad().select(0, 1).fill_(INFINITY);
      if (step == 5) w.grad().select(0, 2).select(0, 0).fill_(NAN);
    }
    scaler.unscale_(opt);
    t.grads.push_back(host(w.grad()));
    t.grads.push_back(host(b.grad()));
    t.stepped.push_back(scaler.step(opt));
    scaler.update();
    t.scales.push_back(scaler.get_scale());
    t.params.push_back(host(w.detach()));
    t.params.push_back(host(b.detach()));
  }
  return t;
}

/// Element by element; NaN matches NaN, inf matches inf of the same sign.
bool same_values(const Tensor& a, const Tensor& b, double tol) {
  const Tensor fa = a.contiguous(), fb = b.contiguous();
  if (fa.sizes() != fb.sizes()) return false;
  const double* p = fa.data_ptr<double>();
  const double* q = fb.data_ptr<double>();
  for (int64_t i = 0; i < fa.numel(); ++i) {
    if (std::isnan(p[i]) || std::isnan(q[i])) {
      if (std::isnan(p[i]) != std::isnan(q[i])) return false;
    } else if (std::isinf(p[i]) || std::isinf(q[i])) {
      if (p[i] != q[i]) return false;
    } else if (std::abs(p[i] - q[i]) > tol * (1 + std::abs(q[i]))) {
      return false;
    }
  }
  return true;
}

TEST(CudaGradScaler, FollowsTheCpuTrajectory) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Trajectory want = train(kCPU), got = train(gpu);
  // Two clean steps double the scale, the inf (step 2) and the NaN (step 5) skip their steps
  // and halve it.
  const std::vector<bool> stepped{true, true, false, true, true, false, true, true};
  const std::vector<double> scales{1024, 2048, 1024, 1024, 2048, 1024, 1024, 2048};
  EXPECT_EQ(want.stepped, stepped);
  EXPECT_EQ(want.scales, scales);
  EXPECT_EQ(got.stepped, stepped);
  EXPECT_EQ(got.scales, scales);
  for (size_t i = 0; i < want.grads.size(); ++i)
    EXPECT_TRUE(same_values(got.grads[i], want.grads[i], 1e-5)) << "gradient " << i;
  for (size_t i = 0; i < want.params.size(); ++i)
    EXPECT_TRUE(same_values(got.params[i], want.params[i], 1e-5)) << "parameter " << i;
}

}  // namespace
}  // namespace ember
