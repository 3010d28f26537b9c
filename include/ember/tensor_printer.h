// What `std::ostream << tensor` writes: ember's repr (PyTorch's Python format, `tensor([1., 2.])`)
// unless a front end installs another printer. The LibTorch layer (include/ember/libtorch)
// installs LibTorch's format when a program includes <torch/torch.h>, because LibTorch programs
// print tensors and compare what they see with LibTorch's output.
#pragma once

#include <ostream>

namespace ember {

class Tensor;

using TensorPrinter = void (*)(std::ostream& os, const Tensor& t);

/// Replaces the printer for the whole process; nullptr restores ember's repr.
void set_tensor_printer(TensorPrinter printer);

}  // namespace ember
