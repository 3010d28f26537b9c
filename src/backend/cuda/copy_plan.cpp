// See copy_plan.h.
#include "backend/cuda/copy_plan.h"

#include <cstring>

#include "backend/cuda/elementwise_plan.h"
#include "core/dispatch.h"

namespace ember::cuda {

kernels::Type storage_type(Dtype dtype, const char* op) {
  switch (dtype) {
    case kFloat32: return kernels::Type::float32;
    case kFloat64: return kernels::Type::float64;
    case kFloat16: return kernels::Type::float16;
    case kBFloat16: return kernels::Type::bfloat16;
    case kInt32: return kernels::Type::int32;
    case kInt64: return kernels::Type::int64;
    case kBool: return kernels::Type::boolean;
    default: fail(op, "the cuda backend has no ", dtype_name(dtype), " kernel yet (", op,
                  " on cuda takes float32, float64, float16, bfloat16, int32, int64 or bool)");
  }
}

kernels::CopyLaunch plan_copy_launch(const Tensor& dst, const Tensor& src) {
  EMBER_CHECK(dst.sizes() == src.sizes(), "copy_", "expected equal shapes, got ", dst.sizes(),
              " and ", src.sizes());
  kernels::CopyLaunch l{};
  l.dst = storage_type(dst.dtype(), "copy_");
  l.src = storage_type(src.dtype(), "copy_");
  static_cast<kernels::Strided&>(l) = plan_strided<2>("copy_", {&dst, &src});
  return l;
}

int64_t memcpy_bytes(const kernels::CopyLaunch& l) {
  if (l.dst != l.src || l.ndim > 1) return -1;
  const int64_t item = kernels::type_size(l.dst);
  if (l.ndim == 0) return item;  // a single element
  // One merged dim: a run when both step by one element (a broadcast source has stride 0).
  return l.strides[0][0] == item && l.strides[1][0] == item ? l.numel * item : -1;
}

kernels::FillLaunch plan_fill_launch(const Tensor& dst, Scalar value) {
  kernels::FillLaunch l{};
  static_cast<kernels::Strided&>(l) = plan_strided<1>("fill_", {&dst});
  l.itemsize = int32_t(dst.element_size());
  dispatch(dst.dtype(), "fill_", [&]<class T>() {
    const T v = value.to<T>();
    static_assert(sizeof(T) <= sizeof(l.bits));
    std::memcpy(&l.bits, &v, sizeof(T));  // the low bytes on a little-endian host and device
  });
  return l;
}

bool transfer_is_async(Device dst, Device src, bool non_blocking, bool host_side_pinned) {
  EMBER_CHECK(dst.is_cuda() || src.is_cuda(), "to", "expected a CUDA device on one side of the "
              "copy, got ", src, " and ", dst);
  const bool one_side_host = dst.is_cpu() || src.is_cpu();
  return non_blocking && one_side_host && host_side_pinned;
}

}  // namespace ember::cuda
