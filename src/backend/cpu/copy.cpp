// Strided copy with dtype conversion, and fill. Same-dtype contiguous runs use memcpy, float16 <->
// float32 the bulk conversions; other runs are simple loops the compiler vectorises for the
// contiguous case.
#include "backend/cpu/copy.h"

#include <cstring>

#include "backend/cpu/half_convert.h"
#include "backend/cpu/loop.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace EMBER_CPU_NS {

namespace {

// dst and src (of dst's sizes) as one loop. Both contiguous, as every cast autocast makes and
// most .to() calls are, is one run with nothing to plan: planning costs more than copying a
// small tensor.
LoopPlan<2> copy_plan(const Tensor& dst, const Tensor& src, int64_t dsize, int64_t ssize) {
  const std::array<char*, 2> base{static_cast<char*>(dst.data_ptr()),
                                  static_cast<char*>(src.data_ptr())};
  if (dst.is_contiguous() && src.is_contiguous() && dst.sizes() == src.sizes()) {
    LoopPlan<2> p;
    p.base = base;
    p.numel = dst.numel();
    p.shape.push_back(p.numel);
    p.strides[0].push_back(dsize);
    p.strides[1].push_back(ssize);
    return p;
  }
  const DimVector ds = byte_strides(dst.strides(), dsize), ss = byte_strides(src.strides(), ssize);
  return plan_loop<2>(dst.sizes(), base, {IntArrayRef(ds), IntArrayRef(ss)});
}

}  // namespace

void copy_kernel(const Tensor& dst, const Tensor& src) {
  const int64_t dsize = dst.element_size(), ssize = src.element_size();
  const auto plan = copy_plan(dst, src, dsize, ssize);
  if (dst.dtype() == src.dtype()) {
    run_loop(plan, [dsize](std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
      if (s[0] == dsize && s[1] == dsize) {
        std::memmove(p[0], p[1], size_t(n * dsize));
        return;
      }
      char *d = p[0], *q = p[1];
      for (int64_t i = 0; i < n; ++i, d += s[0], q += s[1]) std::memcpy(d, q, size_t(dsize));
    });
    return;
  }
  dispatch(dst.dtype(), "copy_", [&]<class To>() {
    dispatch(src.dtype(), "copy_", [&]<class From>() {
      run_loop(plan, [](std::array<char*, 2>& p, const std::array<int64_t, 2>& s, int64_t n) {
        if (s[0] == sizeof(To) && s[1] == sizeof(From)) {
          auto* d = reinterpret_cast<To*>(p[0]);
          const auto* q = reinterpret_cast<const From*>(p[1]);
          // float16 <-> float32 through F16C where the CPU has it (half_convert.h): element by
          // element, each conversion is a software rounding.
          if constexpr (std::is_same_v<To, Half> && std::is_same_v<From, float>)
            return ::ember::cpu::from_float(q, d, n);
          if constexpr (std::is_same_v<To, float> && std::is_same_v<From, Half>)
            return ::ember::cpu::to_float(q, d, n);
          for (int64_t i = 0; i < n; ++i) d[i] = convert<To>(q[i]);
          return;
        }
        char *d = p[0], *q = p[1];
        for (int64_t i = 0; i < n; ++i, d += s[0], q += s[1])
          *reinterpret_cast<To*>(d) = convert<To>(*reinterpret_cast<const From*>(q));
      });
    });
  });
}

void fill_kernel(const Tensor& dst, Scalar value) {
  dispatch(dst.dtype(), "fill_", [&]<class T>() {
    const T v = value.to<T>();
    const DimVector ds = byte_strides(dst.strides(), sizeof(T));
    const auto plan = plan_loop<1>(dst.sizes(), {static_cast<char*>(dst.data_ptr())},
                                   {IntArrayRef(ds)});
    run_loop(plan, [v](std::array<char*, 1>& p, const std::array<int64_t, 1>& s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* d = reinterpret_cast<T*>(p[0]);
        std::fill(d, d + n, v);
        return;
      }
      char* d = p[0];
      for (int64_t i = 0; i < n; ++i, d += s[0]) *reinterpret_cast<T*>(d) = v;
    });
  });
}

bool equal_kernel(const Tensor& a, const Tensor& b) {
  return dispatch(a.dtype(), "equal", [&]<class T>() {
    const T* x = a.data_ptr<T>();
    const T* y = b.data_ptr<T>();
    for (int64_t i = 0; i < a.numel(); ++i)
      if (!(convert<double>(x[i]) == convert<double>(y[i]))) return false;
    return true;
  });
}

}  // namespace EMBER_CPU_NS
