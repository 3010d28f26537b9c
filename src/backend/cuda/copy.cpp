// The host side of the CUDA copy family: the kCUDA backend's copy and fill entries and the
// creation family's zero. A copy is a cudaMemcpyAsync when it is one run of equal bytes, else the
// converting strided kernel (copy.cu); both run on the current stream of the tensors' device.
#include "backend/backend.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void copy(const Tensor& dst, const Tensor& src) {
  const kernels::CopyLaunch l = plan_copy_launch(dst, src);
  if (l.numel == 0) return;
  const int64_t bytes = memcpy_bytes(l);
  launch_on(dst.device(), "copy_", [&](cudaStream_t s) {
    return bytes >= 0 ? int(cudaMemcpyAsync(l.base[0], l.base[1], size_t(bytes),
                                            cudaMemcpyDeviceToDevice, s))
                      : kernels::launch_copy(l, s);
  });
}

void fill(const Tensor& dst, Scalar value) {
  const kernels::FillLaunch l = plan_fill_launch(dst, value);
  if (l.numel == 0) return;
  launch_on(dst.device(), "fill_", &kernels::launch_fill, l);
}

// t is new and contiguous: every byte zero.
void zero(const Tensor& t) {
  if (t.nbytes() == 0) return;
  launch_on(t.device(), "zeros", [&](cudaStream_t s) {
    return cudaMemsetAsync(t.data_ptr(), 0, size_t(t.nbytes()), s);
  });
}

}  // namespace

void install_copy_kernels(backend::Backend& b) {
  b.copy = &copy;
  b.fill = &fill;
  b.creation.zero = &zero;
}

}  // namespace ember::cuda
