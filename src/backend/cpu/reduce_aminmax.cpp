// CPU kernel of aminmax, which finds the minimum and the maximum in one pass, NaN propagating
// as in amin/amax (reduce_extremum.cpp; a file of its own to keep each one's compile short).
#include <cmath>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

// (min, max) in one pass: lo/hi lanes that propagate NaN like amin/amax.
template <class T>
struct MinMax {
  T lo, hi;
};
struct MinMaxReducer {
  template <class A> A init() const {
    using T = decltype(A::lo);
    return {MinReducer{}.init<T>(), MaxReducer{}.init<T>()};
  }
  template <class A> A combine(A a, A b) const {
    return {vmin(a.lo, b.lo), vmax(a.hi, b.hi)};
  }
  template <class A> A finish(A a) const { return a; }
  template <class A, class In> A lift(In x) const {
    const auto c = convert<decltype(A::lo)>(x);
    return {c, c};
  }
  // SIMD leaf for float/double: two vector lanes (lo, hi) per element read.
  template <class In> auto leaf(const In* p, int64_t n) const {
    using T = compute_t<In>;
    MinMax<T> acc = init<MinMax<T>>();
    int64_t i = 0;
    if constexpr (simd_type_v<In>) {
      constexpr int W = Vec<T>::size;
      if (n >= 2 * W) {
        Vec<T> lo0 = Vec<T>::load(p), hi0 = lo0, lo1 = Vec<T>::load(p + W), hi1 = lo1;
        for (i = 2 * W; i + 2 * W <= n; i += 2 * W) {
          const Vec<T> a = Vec<T>::load(p + i), b = Vec<T>::load(p + i + W);
          lo0 = vmin(lo0, a);
          hi0 = vmax(hi0, a);
          lo1 = vmin(lo1, b);
          hi1 = vmax(hi1, b);
        }
        const Vec<T> lo = vmin(lo0, lo1), hi = vmax(hi0, hi1);
        for (int k = 0; k < W; ++k) acc = combine(acc, MinMax<T>{lo[k], hi[k]});
      }
    }
    for (; i < n; ++i) acc = combine(acc, lift<MinMax<T>>(p[i]));
    return acc;
  }
};

void aminmax_kernel(const char* op, const Tensor& lo, const Tensor& hi, const Tensor& in,
                    IntArrayRef dims) {
  const int64_t M = lo.numel();
  dispatch(in.dtype(), op, [&]<class T>() {
    using A = MinMax<compute_t<T>>;
    const auto acc = std::make_unique<A[]>(size_t(M));
    run_reduction<A, A, T>(acc.get(), plan_layout(in, dims), MinMaxReducer{});
    T* l = lo.data_ptr<T>();
    T* h = hi.data_ptr<T>();
    for (int64_t m = 0; m < M; ++m) {
      l[m] = convert<T>(acc[m].lo);
      h[m] = convert<T>(acc[m].hi);
    }
  });
}

}  // namespace

void add_aminmax_kernels(backend::ReduceKernels& k) { k.aminmax = &aminmax_kernel; }

}  // namespace EMBER_CPU_NS
