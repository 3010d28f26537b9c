// See arg_reduce_plan.h.
#include "backend/cuda/arg_reduce_plan.h"

#include <algorithm>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {

kernels::ArgReduceLaunch plan_arg_reduce_launch(const char* op, bool is_max, const Tensor& values,
                                                const Tensor& indices, const Tensor& rows) {
  EMBER_CHECK(rows.dim() == 2 && rows.is_contiguous() && rows.size(1) > 0 &&
                  values.is_contiguous() && indices.is_contiguous() &&
                  values.numel() == rows.size(0) && indices.numel() == rows.size(0) &&
                  values.dtype() == rows.dtype() && indices.dtype() == kInt64,
              op,
              "expected contiguous (M, D > 0) rows, M values of their dtype and M int64 "
              "indices, got ",
              rows.sizes(), " ", rows.dtype(), ", ", values.sizes(), " ", values.dtype(), " and ",
              indices.sizes(), " ", indices.dtype());
  EMBER_CHECK(rows.is_floating_point(), op, "the cuda backend has no ", dtype_name(rows.dtype()),
              " kernel yet (", op, " on cuda takes float32, float64, float16 or bfloat16)");
  kernels::ArgReduceLaunch l{};
  l.is_max = is_max;
  l.type = storage_type(rows.dtype(), op);
  l.rows = rows.size(0);
  l.cols = rows.size(1);
  l.in = static_cast<const char*>(rows.data_ptr());
  l.values = static_cast<char*>(values.data_ptr());
  l.indices = indices.data_ptr<int64_t>();
  l.blocks = uint32_t(std::clamp<int64_t>(l.rows, 1, 65536));
  l.threads = block_threads(l.cols, kReduceThreads);
  return l;
}

}  // namespace ember::cuda
