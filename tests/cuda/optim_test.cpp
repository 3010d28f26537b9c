// Every optimizer with a fused CUDA update (src/backend/cuda/optim.cu: SGD, Adam, AdamW, Adamax,
// NAdam, RAdam, RMSprop, Adagrad) steps a parameter on the device as the CPU steps its copy: five
// steps with the same gradients, in float32 and float64, options that reach every branch of the
// kernels (momentum, nesterov, amsgrad, weight decay, maximize, centered). Skips with "no CUDA
// device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda/op_support.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace cuda_test;

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(const Tensor& param)>;

template <class O, class Options>
MakeOptimizer make(Options options) {
  return [options](const Tensor& p) { return std::make_unique<O>(std::vector<Tensor>{p}, options); };
}

const std::vector<std::pair<const char*, MakeOptimizer>>& optimizers() {
  static const std::vector<std::pair<const char*, MakeOptimizer>> all = {
      {"SGD", make<optim::SGD>(optim::SGDOptions{.lr = 0.1, .momentum = 0.9, .dampening = 0.1,
                                                 .weight_decay = 0.01})},
      {"SGD nesterov", make<optim::SGD>(optim::SGDOptions{.lr = 0.1, .momentum = 0.9,
                                                          .nesterov = true, .maximize = true})},
      {"Adam amsgrad", make<optim::Adam>(optim::AdamOptions{.lr = 0.01, .weight_decay = 0.1,
                                                            .amsgrad = true})},
      {"AdamW", make<optim::AdamW>(optim::AdamWOptions{.lr = 0.01, .maximize = true})},
      {"Adamax", make<optim::Adamax>(optim::AdamaxOptions{.lr = 0.01, .weight_decay = 0.1})},
      {"NAdam", make<optim::NAdam>(optim::NAdamOptions{.lr = 0.01, .weight_decay = 0.1})},
      {"RAdam", make<optim::RAdam>(optim::RAdamOptions{.lr = 0.01, .weight_decay = 0.1})},
      {"RMSprop centered", make<optim::RMSprop>(optim::RMSpropOptions{
                               .lr = 0.01, .weight_decay = 0.1, .momentum = 0.9,
                               .centered = true})},
      {"Adagrad", make<optim::Adagrad>(optim::AdagradOptions{.lr = 0.1, .lr_decay = 0.01,
                                                              .maximize = true})},
  };
  return all;
}

class CudaOptim : public ::testing::TestWithParam<Dtype> {};

TEST_P(CudaOptim, EveryFusedUpdateStepsAsTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Dtype dtype = GetParam();
  for (const auto& [name, make_optimizer] : optimizers()) {
    const Tensor start = values({37, 29}, 0.37, dtype);
    Tensor on_cpu = start.clone().requires_grad_(), on_gpu = start.to(gpu).requires_grad_();
    const auto cpu_opt = make_optimizer(on_cpu), gpu_opt = make_optimizer(on_gpu);
    for (int step = 0; step < 5; ++step) {
      const Tensor grad = values({37, 29}, 0.11 * (step + 1), dtype);
      on_cpu.mutable_grad() = grad.clone();
      on_gpu.mutable_grad() = grad.to(gpu);
      cpu_opt->step();
      gpu_opt->step();
    }
    // A few roundings per step, contracted differently by nvcc and the host compiler.
    const double tol = 64 * tolerance(dtype);
    EXPECT_TRUE(allclose(host(on_gpu), host(on_cpu), tol, tol))
        << name << " in " << dtype_name(dtype);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaOptim, ::testing::Values(kFloat32, kFloat64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace ember
