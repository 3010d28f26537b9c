// LibTorch's tensor format for `std::cout << tensor` (at::print): values in aligned columns,
// then a line naming the type and sizes, "[ CPUFloatType{2,3} ]". ember's own operator<< writes
// PyTorch's Python repr; this header installs LibTorch's format in every program that includes
// the layer (see tensor_printer_installed below). src/libtorch/print.cpp describes the format.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/tensor.h"
#include "ember/print_hooks.h"

namespace c10 {

/// LibTorch's name of a dtype: "Float", "Long", "BFloat16", ...
const char* toString(ember::ScalarType t);

/// "CPU" or "CUDA"; "cpu" or "cuda" with lower_case.
std::string DeviceTypeName(ember::DeviceType d, bool lower_case = false);

}  // namespace c10

namespace at {

/// Writes `t` as LibTorch does, splitting matrices wider than `linesize` characters into
/// column blocks; returns `stream`. `std::ostream << t` is print(stream, t, 80).
std::ostream& print(std::ostream& stream, const ember::Tensor& t, int64_t linesize);
/// print(std::cout, t, linesize).
void print(const ember::Tensor& t, int64_t linesize = 80);

}  // namespace at

namespace torch {
using at::print;
}  // namespace torch

namespace torch::detail {

/// The TensorPrinter the layer installs: at::print(os, t, 80).
void print_tensor(std::ostream& os, const ember::Tensor& t);
/// The DtypePrinter the layer installs: the C++ type's name, as LibTorch's `tensor.dtype()` (a
/// caffe2::TypeMeta) prints: "float", "long int", "c10::BFloat16". ember has one dtype type
/// where LibTorch has two, so `std::cout << t.scalar_type()` prints this too, not "Float"
/// (c10::toString gives that).
void print_dtype(std::ostream& os, ember::Dtype t);

/// LibTorch's Tensor::toString(): device type, dtype name and "Type", "CPUFloatType".
std::string type_string(const ember::Tensor& t);

// Installed by dynamic initializers of inline variables, not by one inside
// libember_libtorch: every translation unit that includes the layer then refers to
// print_tensor, so a static libember_libtorch always links print.o (an initializer in an
// otherwise unreferenced object file would be dropped by the linker), and the printer is in
// place before main() whichever library form is used. Programs that do not include the layer
// keep ember's repr. Setting it more than once (one per translation unit) is harmless.
inline const bool tensor_printer_installed = (ember::set_tensor_printer(&print_tensor), true);
inline const bool dtype_printer_installed = (ember::set_dtype_printer(&print_dtype), true);

}  // namespace torch::detail
