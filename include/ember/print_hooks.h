// What `std::ostream <<` writes for a tensor and a dtype: ember's repr (PyTorch's Python format,
// `tensor([1., 2.])`, `torch.float32`) unless a front end installs other printers. The LibTorch
// layer (include/ember/libtorch) installs LibTorch's formats when a program includes
// <torch/torch.h>, because LibTorch programs print tensors and dtypes and compare what they see
// with LibTorch's output.
#pragma once

#include <ostream>

#include "ember/dtype.h"

namespace ember {

class Tensor;

using TensorPrinter = void (*)(std::ostream& os, const Tensor& t);
using DtypePrinter = void (*)(std::ostream& os, Dtype t);

/// Replaces the tensor printer for the whole process; nullptr restores ember's repr.
void set_tensor_printer(TensorPrinter printer);
/// Replaces the dtype printer for the whole process; nullptr restores "torch.float32".
void set_dtype_printer(DtypePrinter printer);

}  // namespace ember
