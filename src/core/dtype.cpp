// dtype names and PyTorch's promotion lattice.
#include "ember/dtype.h"

#include <atomic>
#include <ostream>

#include "ember/error.h"
#include "ember/print_hooks.h"

namespace ember {

const char* dtype_name(Dtype t) {
  static const char* names[kNumDtypes] = {"bool",    "uint8",    "int8",    "int16",  "int32",
                                          "int64",   "float16",  "bfloat16", "float32", "float64"};
  return names[int(t)];
}

namespace {
std::atomic<DtypePrinter> installed_dtype_printer{nullptr};
}  // namespace

void set_dtype_printer(DtypePrinter printer) { installed_dtype_printer.store(printer); }

std::ostream& operator<<(std::ostream& os, Dtype t) {
  if (DtypePrinter printer = installed_dtype_printer.load(std::memory_order_relaxed)) {
    printer(os, t);
    return os;
  }
  return os << "torch." << dtype_name(t);
}

Dtype promote_types(Dtype a, Dtype b) {
  if (a == b) return a;
  // PyTorch's table (c10/core/ScalarType.h), rows/columns in ScalarType order:
  // b1 u1 i1 i2 i4 i8 f2 bf f4 f8
  constexpr Dtype b1 = kBool, u1 = kUInt8, i1 = kInt8, i2 = kInt16, i4 = kInt32, i8 = kInt64,
                  f2 = kFloat16, bf = kBFloat16, f4 = kFloat32, f8 = kFloat64;
  static constexpr Dtype table[kNumDtypes][kNumDtypes] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[int(a)][int(b)];
}

namespace {
Dtype g_default_dtype = kFloat32;
}

Dtype default_dtype() { return g_default_dtype; }

void set_default_dtype(Dtype t) {
  EMBER_CHECK(t == kFloat32 || t == kFloat64, "set_default_dtype",
              "only floating point types are supported as the default type, got ", t);
  g_default_dtype = t;
}

}  // namespace ember
