// checkpoint_models_close A.pt B.pt [atol]: exit 0 when the "model" state dicts of two
// checkpoints of the Fashion-MNIST programs hold the same keys, shapes and values within atol
// (default 1e-5, float32 rounding over a few AdamW steps); otherwise exit 1 and name the first
// key that differs and by how much. The DDP scripts in tests/train use it to compare runs that
// should train the same model (tests/train/ddp_accumulation.sh).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <ember/ember.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: checkpoint_models_close A.pt B.pt [atol]\n");
    return 2;
  }
  const double atol = argc > 3 ? std::atof(argv[3]) : 1e-5;
  try {
    const ember::StateDict a = ember::load(argv[1])["model"].to_state_dict();
    const ember::StateDict b = ember::load(argv[2])["model"].to_state_dict();
    if (a.keys() != b.keys()) {
      std::fprintf(stderr, "the two models have different keys\n");
      return 1;
    }
    double worst = 0;
    for (const auto& [key, ta] : a) {
      const ember::Tensor& tb = b[key];
      if (ta.sizes() != tb.sizes()) {
        std::fprintf(stderr, "%s: shapes differ\n", key.c_str());
        return 1;
      }
      const double diff = (ta.to(ember::kFloat64) - tb.to(ember::kFloat64)).abs().max().item<double>();
      if (diff > atol) {
        std::fprintf(stderr, "%s differs by up to %g (atol %g)\n", key.c_str(), diff, atol);
        return 1;
      }
      worst = std::max(worst, diff);
    }
    std::printf("%zu tensors equal within %g (largest difference %g)\n", a.size(), atol, worst);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
