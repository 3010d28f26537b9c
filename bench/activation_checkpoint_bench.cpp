// Activation checkpointing on the model: a 6-layer TransformerEncoder (d_model 256,
// 8 heads, feed-forward 1024, batch 32 x 128 tokens, dropout 0.1), one training step (AdamW)
// with and without apply_activation_checkpointing on every encoder layer, interleaved A B A B.
// Reports the median step time and the peak activation memory: the allocator's peak during
// forward + backward above what was allocated before the forward (parameters, optimizer state).
// Targets (issue 16): peak activation memory <= 0.5x at <= 1.4x the step time.
//
//   build/bench/activation_checkpoint_bench [pairs=3]
#include <ember/allocator.h>
#include <ember/ember.h>
#include <ember/utils/checkpoint.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ember;

struct Model {
  nn::TransformerEncoder encoder{
      nn::TransformerEncoderLayer(256, 8, {.dim_feedforward = 1024, .batch_first = true}), 6};
  optim::AdamW opt{encoder->parameters(), {.lr = 1e-4}};
};

struct Measure {
  double seconds;
  double peak_activation_mb;
};

Measure step(Model& m, const Tensor& x) {
  m.opt.zero_grad();  // set_to_none: gradients are allocated inside the measured region
  cpu::reset_peak_allocated_bytes();
  const size_t before = cpu::allocator_stats().allocated_bytes;
  const auto t0 = std::chrono::steady_clock::now();
  m.encoder(x).pow(2).mean().backward();
  const double peak = double(cpu::allocator_stats().peak_allocated_bytes - before) / 1e6;
  m.opt.step();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {s, peak};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line)) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line.substr(line.find(':') + 2);
  }
  std::string kept;
  for (const char* f : {"avx2", "fma", "f16c", "avx512f"}) {
    std::istringstream words(flags);
    std::string w;
    bool has = false;
    while (words >> w) has |= w == f;
    kept += std::string(has ? "" : "no ") + f + " ";
  }
  return model + " (" + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)) + " cores; " + kept + ")";
}

}  // namespace

int main(int argc, char** argv) {
  // OpenBLAS reads these when it loads, so they are dropped by running again without them.
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv("OPENBLAS_L2_SIZE")) {
    ::unsetenv("OPENBLAS_CORETYPE");
    ::unsetenv("OPENBLAS_L2_SIZE");
    ::execv("/proc/self/exe", argv);
  }
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 3;
  manual_seed(0);
  Model plain, checkpointed;
  const auto wrapped =
      utils::apply_activation_checkpointing(*checkpointed.encoder, [](const nn::Module& m) {
        return dynamic_cast<const nn::TransformerEncoderLayerImpl*>(&m) != nullptr;
      });
  const Tensor x = randn({32, 128, 256});
  std::printf(
      "activation checkpointing: 6-layer TransformerEncoder(256, 8, ff 1024), x (32, 128, 256)\n");
  std::printf("cpu: %s\nwrapped %zu modules (%s ...)\n", cpu_description().c_str(), wrapped.size(),
              wrapped.front().c_str());
  step(plain, x);  // warm the allocator's cache on both sides
  step(checkpointed, x);
  std::vector<double> ta, tb, ma, mb;
  for (int i = 0; i < pairs; ++i) {
    const Measure a = step(plain, x), b = step(checkpointed, x);
    ta.push_back(a.seconds), ma.push_back(a.peak_activation_mb);
    tb.push_back(b.seconds), mb.push_back(b.peak_activation_mb);
    std::printf("pair %d: plain %.3f s %.1f MB | checkpointed %.3f s %.1f MB\n", i, a.seconds,
                a.peak_activation_mb, b.seconds, b.peak_activation_mb);
  }
  const double time_ratio = median(tb) / median(ta), mem_ratio = median(mb) / median(ma);
  std::printf("median step: plain %.3f s, checkpointed %.3f s -> %.2fx (target <= 1.4x)\n",
              median(ta), median(tb), time_ratio);
  std::printf(
      "peak activation memory: plain %.1f MB, checkpointed %.1f MB -> %.2fx (target <= 0.5x)\n",
      median(ma), median(mb), mem_ratio);
  return 0;
}
