// expect: ember's optimizer options are structs, not LibTorch's builders: write optim::Adam(params, {.lr = 2e-4, .betas = {0.5, 0.999}})
// LibTorch (the DCGAN tutorial): torch::optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5))
#include <tuple>

#include <ember/optim/adam.h>
using namespace ember;
auto options = optim::AdamOptions(2e-4).betas(std::make_tuple(0.5, 0.5));
