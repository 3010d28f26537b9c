// at::globalContext(): ATen's process-wide switches, the ones programs set before training.
// ember computes every float32 matrix product and convolution in full float32 (no TF32 path on
// any device), accumulates float16 products in float32 and takes cuDNN's heuristic choice of
// convolution algorithm (no autotuning), so these switches accept the value ember already obeys
// and refuse the others with an ember::Error, instead of taking a request ember would not honour.
#pragma once

#include <string>

#include "ember/cuda.h"
#include "ember/error.h"

namespace at {

class Context {
 public:
  bool allowTF32CuBLAS() const { return false; }
  void setAllowTF32CuBLAS(bool allow) {
    refuse_tf32("at::globalContext().setAllowTF32CuBLAS", allow);
  }
  bool allowTF32CuDNN() const { return false; }
  void setAllowTF32CuDNN(bool allow) { refuse_tf32("at::globalContext().setAllowTF32CuDNN", allow); }

  /// ember's float16 products accumulate in float32 (cuBLAS's CUBLAS_COMPUTE_32F), never in float16.
  bool allowFP16ReductionCuBLAS() const { return false; }
  void setAllowFP16ReductionCuBLAS(bool allow) {
    EMBER_CHECK(!allow, "at::globalContext().setAllowFP16ReductionCuBLAS",
                "ember's float16 matrix products accumulate in float32, so only false is accepted");
  }

  /// ember's cuDNN convolutions take the algorithm cuDNN's heuristics rank first, as PyTorch's
  /// do with benchmark off; it does not autotune.
  bool benchmarkCuDNN() const { return false; }
  void setBenchmarkCuDNN(bool benchmark) {
    EMBER_CHECK(!benchmark, "at::globalContext().setBenchmarkCuDNN",
                "ember takes cuDNN's heuristic choice of convolution algorithm and does not "
                "autotune, so only false is accepted");
  }

  /// "highest": float32 products in float32, the only precision ember has.
  std::string float32MatmulPrecision() const { return "highest"; }
  void setFloat32MatmulPrecision(const std::string& precision) {
    EMBER_CHECK(precision == "highest", "at::globalContext().setFloat32MatmulPrecision",
                "ember computes float32 matrix products in full float32 (no TF32 or bfloat16 "
                "shortcut), so only \"highest\" is accepted; got \"", precision, "\"");
  }

  bool hasCUDA() const { return ember::cuda::is_available(); }

 private:
  static void refuse_tf32(const char* setter, bool allow) {
    EMBER_CHECK(!allow, setter,
                "ember has no TF32 path: float32 matrix products and convolutions run in full "
                "float32, so only false is accepted");
  }
};

/// The process's context. It holds no state: each switch reports what ember does.
inline Context& globalContext() {
  static Context context;
  return context;
}

}  // namespace at
