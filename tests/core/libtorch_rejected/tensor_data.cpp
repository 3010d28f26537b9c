// expect: ember has no Tensor::data(): use t.detach()
// LibTorch: p.data().add_(...) (the pre-autograd way to update a parameter)
#include <ember/tensor.h>
using namespace ember;
void step(const Tensor& p) { p.data().add_(1); }
