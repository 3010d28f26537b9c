// expect: torch::optim::LBFGSOptions: ember has no L-BFGS optimizer
// LibTorch: torch::optim::LBFGS with its options (ember has no L-BFGS; the layer refuses the
// names at compile time rather than run something else).
#include <torch/torch.h>

int main() {
  torch::nn::Linear model(4, 3);
  torch::optim::LBFGS optimizer(model->parameters(), torch::optim::LBFGSOptions(1).max_iter(20));
  return 0;
}
