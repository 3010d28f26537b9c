// dtype dispatch: calls a C++20 template lambda with the element type of a runtime dtype.
//   dispatch(t.dtype(), "sum", [&]<class T>() { ... T ... });
// The op name goes into the error for a dtype that the chosen set does not cover.
#pragma once

#include <cstdint>

#include "ember/dtype.h"
#include "ember/error.h"

namespace ember {

/// Which dtypes a kernel supports.
enum class DtypeSet { All, Floating, Numeric /* all but bool */, Integral /* ints and bool */ };

inline bool dtype_in_set(Dtype t, DtypeSet set) {
  switch (set) {
    case DtypeSet::All: return true;
    case DtypeSet::Floating: return is_floating_point(t);
    case DtypeSet::Numeric: return t != kBool;
    case DtypeSet::Integral: return is_integral(t, /*include_bool=*/true);
  }
  return false;
}

template <DtypeSet Set = DtypeSet::All, class F>
decltype(auto) dispatch(Dtype t, const char* op, F&& f) {
  EMBER_CHECK(dtype_in_set(t, Set), op, "not implemented for dtype ", t);
  switch (t) {
    case kBool: if constexpr (Set == DtypeSet::All || Set == DtypeSet::Integral)
                  return f.template operator()<bool>();
                break;
    case kUInt8: if constexpr (Set != DtypeSet::Floating) return f.template operator()<uint8_t>();
                 break;
    case kInt8: if constexpr (Set != DtypeSet::Floating) return f.template operator()<int8_t>();
                break;
    case kInt16: if constexpr (Set != DtypeSet::Floating) return f.template operator()<int16_t>();
                 break;
    case kInt32: if constexpr (Set != DtypeSet::Floating) return f.template operator()<int32_t>();
                 break;
    case kInt64: if constexpr (Set != DtypeSet::Floating) return f.template operator()<int64_t>();
                 break;
    case kFloat16: if constexpr (Set != DtypeSet::Integral) return f.template operator()<Half>();
                   break;
    case kBFloat16: if constexpr (Set != DtypeSet::Integral)
                      return f.template operator()<BFloat16>();
                    break;
    case kFloat32: if constexpr (Set != DtypeSet::Integral) return f.template operator()<float>();
                   break;
    case kFloat64: if constexpr (Set != DtypeSet::Integral) return f.template operator()<double>();
                   break;
  }
  fail(op, "not implemented for dtype ", t);
}

/// Accumulation / compute type: float for half types, the type itself otherwise.
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<Half> { using type = float; };
template <> struct compute_type<BFloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;

}  // namespace ember
