// expect: ember's TensorOptions is a struct, not LibTorch's builder: write TensorOptions{.dtype = kFloat32
// LibTorch: torch::TensorOptions().dtype(torch::kFloat32).requires_grad(true)
#include <ember/tensor_options.h>
using namespace ember;
auto options = TensorOptions().dtype(kFloat32);
