// What the CUDA op tests share (tests/cuda/reduce_test.cpp, softmax_test.cpp, gemm_test.cpp):
// the device, dtype tolerances, deterministic values, the host view of a result, and the input
// layouts each op is checked on.
#pragma once

#include <ember/ember.h>

#include <functional>
#include <utility>
#include <vector>

namespace ember::cuda_test {

inline const Device gpu("cuda:0");

/// Relative and absolute tolerance of a result in `dtype` against the CPU's.
inline double tolerance(Dtype dtype) {
  return dtype == kFloat64 ? 1e-12 : dtype == kFloat32 ? 1e-5 : dtype == kFloat16 ? 2e-3 : 1.6e-2;
}

/// sin(i * scale) over `sizes`, in `dtype`, on the CPU.
inline Tensor values(IntArrayRef sizes, double scale, Dtype dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (arange(n, {.dtype = kFloat64}).reshape(sizes) * scale).sin().to(dtype);
}

/// On the host, in float64, whatever the layout.
inline Tensor host(const Tensor& t) { return t.contiguous().cpu().to(kFloat64); }

using Layout = std::pair<const char*, std::function<Tensor(const Tensor&)>>;

/// Views of a (30, 50, 7) tensor: as is, transposed, sliced, and a row broadcast (stride 0).
inline const std::vector<Layout>& layouts() {
  static const std::vector<Layout> all = {
      {"contiguous", [](const Tensor& t) { return t; }},
      {"transposed", [](const Tensor& t) { return t.transpose(0, 2); }},
      {"sliced", [](const Tensor& t) { return t.narrow(1, 3, 40).narrow(2, 1, 5); }},
      {"broadcast", [](const Tensor& t) { return t.select(1, 2).unsqueeze(1).expand({30, 9, 7}); }},
  };
  return all;
}

}  // namespace ember::cuda_test
