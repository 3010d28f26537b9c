// LibTorch's core spellings on ember: torch::Tensor (ember::Tensor itself), the dtypes, the
// factories and ops (ember's, by using-declarations), the TensorOptions builder, ATen's
// positional losses and pools, at:: and c10:: for what programs name there, at::globalContext();
// and LibTorch's tensor format for std::ostream << tensor (torch/detail/print.h).
#pragma once

// What LibTorch's headers bring in and programs use without including (std::isnan, std::cout,
// std::printf, std::ifstream, std::setprecision, std::tuple, ...).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/tensor_accessor.h"

#include "ATen/Context.h"
#include "ATen/core/ivalue.h"
#include "c10/core/TensorOptions.h"
#include "c10/macros/Macros.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"
#include "c10/util/Optional.h"
#include "c10/util/StringUtil.h"
#include "torch/detail/aten_functions.h"
#include "torch/detail/ember_names.h"
#include "torch/detail/factories.h"
#include "torch/detail/print.h"
#include "torch/detail/tensor_data.h"

namespace c10 {
using ember::BFloat16;
using ember::Device;
using ember::DeviceType;
using ember::Half;
using ember::Scalar;
using ember::ScalarType;
using ember::kCPU;
using ember::kCUDA;
}  // namespace c10

namespace torch {
using c10::ArrayRef;
using c10::IntArrayRef;
using c10::IValue;
using c10::Layout;
using c10::TensorOptions;
using c10::kStrided;
using c10::nullopt;
using c10::optional;
using c10::str;
}  // namespace torch

// at:: names what torch:: names (at::Tensor, at::kFloat, at::indexing, ...): one directive, not a
// second list. torch holds only declarations, so `using namespace at;` beside
// `using namespace torch;` sees each name once.
namespace at {
using namespace torch;
}  // namespace at
