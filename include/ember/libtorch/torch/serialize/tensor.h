// LibTorch's archive operators for a tensor: stored under key "0".
#pragma once

#include "torch/serialize/archive.h"

namespace torch::serialize {

inline OutputArchive& operator<<(OutputArchive& archive, const ember::Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}

inline InputArchive& operator>>(InputArchive& archive, ember::Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}

}  // namespace torch::serialize
