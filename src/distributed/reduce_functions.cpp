// Reduce functions for Gloo (reduce_functions.h).
#include "distributed/reduce_functions.h"

#include <algorithm>

#include "core/dispatch.h"
#include "ember/error.h"

namespace ember::dist {
namespace {

struct Sum {
  template <class C> static C apply(C a, C b) { return a + b; }
};
struct Product {
  template <class C> static C apply(C a, C b) { return a * b; }
};
struct Min {
  template <class C> static C apply(C a, C b) { return std::min(a, b); }
};
struct Max {
  template <class C> static C apply(C a, C b) { return std::max(a, b); }
};

template <class T, class Op>
void reduce_elements(void* out, const void* a, const void* b, size_t n) {
  using C = compute_t<T>;  // float for float16/bfloat16
  auto* o = static_cast<T*>(out);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      o[i] = static_cast<bool>(Op::apply(static_cast<int>(x[i]), static_cast<int>(y[i])));
    } else {
      o[i] = static_cast<T>(Op::apply(static_cast<C>(x[i]), static_cast<C>(y[i])));
    }
  }
}

}  // namespace

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
  }
  return "?";
}

GlooReduceFunction reduce_function(Dtype dtype, ReduceOp op, const char* op_name) {
  EMBER_CHECK(op != ReduceOp::AVG || is_floating_point(dtype), op_name,
              "ReduceOp::AVG needs a floating-point tensor, got ", dtype,
              " (reduce with SUM and divide, choosing how to round)");
  return dispatch(dtype, op_name, [&]<class T>() -> GlooReduceFunction {
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG: return &reduce_elements<T, Sum>;
      case ReduceOp::PRODUCT: return &reduce_elements<T, Product>;
      case ReduceOp::MIN: return &reduce_elements<T, Min>;
      case ReduceOp::MAX: return &reduce_elements<T, Max>;
    }
    return nullptr;
  });
}

void divide_for_average(void* data, Dtype dtype, size_t n, int divisor) {
  dispatch<DtypeSet::Floating>(dtype, "all_reduce", [&]<class T>() {
    auto* p = static_cast<T*>(data);
    for (size_t i = 0; i < n; ++i)
      p[i] = static_cast<T>(static_cast<compute_t<T>>(p[i]) / static_cast<compute_t<T>>(divisor));
  });
}

}  // namespace ember::dist
