// expect: (nothing: this file compiles, so check.cmake must fail; the self test expects that)
#include <ember/tensor_options.h>
using namespace ember;
TensorOptions options = dtype(kFloat32).requires_grad(true);
