// The host side of the CUDA max/min with indices: the kCUDA backend's max_dim and min_dim
// entries (max/min along a dim, argmax/argmin). Each plans its launch (arg_reduce_plan.cpp,
// tested in every build with the emulated kernel) and queues arg_reduce.cu's kernel on the
// current stream of the rows' device.
#include "backend/backend.h"
#include "backend/cuda/arg_reduce_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

template <bool IsMax>
void arg_reduce(const char* op, const Tensor& values, const Tensor& indices, const Tensor& rows) {
  const kernels::ArgReduceLaunch l = plan_arg_reduce_launch(op, IsMax, values, indices, rows);
  if (l.rows == 0) return;
  launch_on(rows.device(), op, &kernels::launch_arg_reduce, l);
}

}  // namespace

void install_arg_reduce_kernels(backend::Backend& b) {
  b.reduce.max_dim = &arg_reduce<true>;
  b.reduce.min_dim = &arg_reduce<false>;
}

}  // namespace ember::cuda
