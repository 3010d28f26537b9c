// expect: or start the chain from the free functions: dtype(kFloat32).device(kCUDA).requires_grad(true)
// LibTorch: torch::TensorOptions().requires_grad(true)
#include <ember/tensor_options.h>
using namespace ember;
auto options = TensorOptions().requires_grad(true);
