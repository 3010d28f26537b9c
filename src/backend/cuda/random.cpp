// The host side of the CUDA random fills: the kCUDA backend's uniform, normal, bernoulli,
// exponential and random entries. Each plans its launch (random_plan.cpp, tested in every build
// with the emulated kernel) with the grid PyTorch picks on this device and the device's default
// Philox generator, then queues random.cu's kernel on the current stream. random_target is what the fused dropout
// (dropout.cpp) draws with too.
#include <cuda_runtime_api.h>

#include <atomic>

#include "backend/backend.h"
#include "backend/cuda/random_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void fill(const char* op, const Tensor& t, const RandomFill& f, Generator* gen) {
  const RandomTarget target = random_target(op, t.device(), gen);
  const kernels::RandomLaunch l = plan_random_launch(op, t, f, target.gen, target.max_blocks);
  if (l.numel == 0) return;
  launch_on(t.device(), op, &kernels::launch_random, l);
}

void uniform(const char* op, const Tensor& t, double from, double to, Generator* gen) {
  fill(op, t, {.dist = kernels::Distribution::uniform, .a = from, .b = to}, gen);
}
void normal(const char* op, const Tensor& t, double mean, double std, Generator* gen) {
  fill(op, t, {.dist = kernels::Distribution::normal, .a = mean, .b = std}, gen);
}
void bernoulli(const char* op, const Tensor& t, double p, Generator* gen) {
  fill(op, t, {.dist = kernels::Distribution::bernoulli, .a = p}, gen);
}
void exponential(const char* op, const Tensor& t, double lambd, Generator* gen) {
  fill(op, t, {.dist = kernels::Distribution::exponential, .a = lambd}, gen);
}
void random(const char* op, const Tensor& t, uint64_t range, int64_t base, Generator* gen) {
  fill(op, t, {.dist = kernels::Distribution::random32, .range = range, .low = base}, gen);
}

}  // namespace

RandomTarget random_target(const char* op, Device device, const Generator* gen) {
  EMBER_CHECK(gen == nullptr, op, "expected a 'cuda' device type for generator but found 'cpu' ",
              "(an ember::Generator is a CPU generator; ", device,
              " draws from its device's default generator)");
  const int index = resolve_device(device, op);
  // The grid cap is a property of the device: read from the driver once per device, not on every
  // fill (two attribute queries each), as PyTorch caches the device's properties.
  static std::atomic<uint32_t> caps[64];  // 0: not read yet
  EMBER_CHECK(index < 64, op, "cuda:", index, " is beyond the 64 devices ember keeps caps for");
  uint32_t cap = caps[index].load(std::memory_order_relaxed);
  if (cap == 0) {
    int sms = 0, threads_per_sm = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, index), op,
          " reading the SM count of cuda:", index);
    check(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index),
          op, " reading the threads per SM of cuda:", index);
    cap = random_max_blocks(sms, threads_per_sm);
    caps[index].store(cap, std::memory_order_relaxed);
  }
  return {default_philox_generator(index, op), cap};
}

void install_random_kernels(backend::Backend& b) {
  b.random.uniform = &uniform;
  b.random.normal = &normal;
  b.random.bernoulli = &bernoulli;
  b.random.exponential = &exponential;
  b.random.random = &random;
}

}  // namespace ember::cuda
