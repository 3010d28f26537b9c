// LibTorch's tensor format (at::print, which LibTorch's std::ostream << tensor calls), worked
// out by printing many tensors with Debian's LibTorch 1.13 (tests/libtorch/programs/print_*.cpp
// and their goldens show the cases):
//
//   0-dim     the value in the stream's own notation and precision, then "[ CPUFloatType{} ]"
//   1-dim     one value per line, right-aligned to a common width, then "[ CPUFloatType{5} ]"
//   2-dim     rows of values separated by a space; a matrix wider than the line is cut into
//             blocks headed "Columns 1 to 10", then "[ CPUFloatType{3,4} ]"
//   n-dim     each trailing matrix under "(i,j,.,.) = ", the first index varying fastest, each
//             matrix formatted on its own and indented by one space
//   empty     only the type line, "[ CPUFloatType{2,0} ]"; undefined: "[ Tensor (undefined) ]"
//
// One notation serves all values of a 1-d tensor or of one matrix (integral values, fixed with
// 4 decimals, fixed with a common power-of-ten factor on its own line ("0.01 *"), scientific);
// choose_format says which. The values are read as doubles, as LibTorch converts every dtype
// to double first (so bools print 1 and 0, and int64s beyond 2^53 round).
//
// Everything is written through the caller's stream, as LibTorch writes it, in the same
// pieces: the stream's fill, adjustment, showpos, locale and a pending width shape the output
// exactly as they do LibTorch's, and integral values and 0-dim tensors keep the stream's
// precision. The stream's format state is restored afterwards, pending width included.
#include "torch/detail/print.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "c10/core/TensorOptions.h"
#include "ember/error.h"

namespace torch::detail {
namespace {

using ember::Tensor;

enum class Notation { General, Fixed, Scientific };

// How the values of a 1-d tensor or of one matrix are written: each one divided by `scale`,
// right-aligned in `width` characters (wider values stick out), in `notation`; General keeps
// the stream's precision, Fixed and Scientific show 4 decimals.
struct BlockFormat {
  Notation notation;
  int64_t width;
  double scale = 1;
};

// Digits before the decimal point of a magnitude, as a decimal exponent: 1 for 1 to 9.99,
// 3 for 100 to 999, 0 for 0.1 to 0.99, -1 for 0.01 to 0.099; 1 for zero.
double exponent_of(double magnitude) {
  return magnitude == 0 ? 1 : std::floor(std::log10(magnitude)) + 1;
}

// LibTorch's choice of notation and width for `n` values (non-finite ones take no part):
// integral values print as integers when they have at most 9 digits; otherwise magnitudes
// spanning more than 4 decimal orders print in scientific notation, those from 1e-1 to 99999.x
// in fixed notation, others in fixed notation with a common power of ten factored out.
BlockFormat choose_format(const double* values, int64_t n) {
  bool integral = true;
  // The smallest magnitude, and LibTorch's "largest" one: it starts at the first finite
  // value's magnitude and only a larger positive value raises it, so a negative value never
  // widens the columns (after 1.5, -1e120 prints in full in fixed notation). Kept, since the
  // output must be LibTorch's.
  std::optional<double> smallest, largest;
  for (int64_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (!std::isfinite(v)) continue;
    integral = integral && v == std::ceil(v);
    const double magnitude = std::fabs(v);
    if (!smallest) {
      smallest = largest = magnitude;
      continue;
    }
    smallest = std::min(*smallest, magnitude);
    if (v > *largest) largest = magnitude;
  }
  const double lo = smallest ? exponent_of(*smallest) : 1;
  const double hi = largest ? exponent_of(*largest) : 1;
  if (integral) {
    if (hi > 9) return {Notation::Scientific, 11};
    return {Notation::General, int64_t(hi) + 1};
  }
  if (hi - lo > 4) {
    // "1.0000e+100" needs a twelfth character.
    const bool three_digit_exponent = std::fabs(hi) > 99 || std::fabs(lo) > 99;
    return {Notation::Scientific, three_digit_exponent ? 12 : 11};
  }
  if (hi > 5 || hi < 0) return {Notation::Fixed, 7, std::pow(10.0, hi - 1)};
  return {Notation::Fixed, hi == 0 ? 7 : int64_t(hi) + 6};
}

// Sets the stream's notation for a block. The precision stays as the last block set it, so
// in a 3-d tensor an integral matrix after a fractional one shows 4 significant digits, as in
// LibTorch.
void apply(std::ostream& os, const BlockFormat& f) {
  switch (f.notation) {
    case Notation::General:
      os << std::defaultfloat;
      break;
    case Notation::Fixed:
      os << std::fixed << std::setprecision(4);
      break;
    case Notation::Scientific:
      os << std::scientific << std::setprecision(4);
      break;
  }
}

// The factor line, "0.01 *" or "1e-09 *", in general notation at the block's precision.
void write_scale(std::ostream& os, const BlockFormat& f) {
  os << std::defaultfloat << f.scale << " *" << std::endl;
  apply(os, f);
}

void write_indent(std::ostream& os, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) os << ' ';
}

// A rows x cols matrix (row-major doubles) whose lines start with `indent` spaces. LibTorch's
// spacing is irregular and kept as it is: the first line of each column block follows its
// "Columns a to b" header on the same line, and with a factor line every row after the first
// has one more leading space.
void write_matrix(std::ostream& os, const double* data, int64_t rows, int64_t cols,
                  int64_t linesize, int64_t indent) {
  const BlockFormat f = choose_format(data, rows * cols);
  apply(os, f);
  // LibTorch loops forever when not even one column fits; one column per block it is here.
  const int64_t per_block = std::max<int64_t>(1, (linesize - indent) / (f.width + 1));
  write_indent(os, indent);
  for (int64_t first = 0; first < cols; first += per_block) {
    const int64_t end = std::min(cols, first + per_block);
    if (per_block < cols) {
      if (first > 0) os << std::endl;
      os << "Columns " << first + 1 << " to " << end;
      write_indent(os, indent);
    }
    if (f.scale != 1) {
      write_scale(os, f);
      write_indent(os, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (r > 0) write_indent(os, indent + (f.scale != 1 ? 1 : 0));
      for (int64_t c = first; c < end; ++c) {
        if (c > first) os << ' ';
        os << std::setw(int(f.width)) << data[r * cols + c] / f.scale;
      }
      os << std::endl;
    }
  }
}

void write_vector(std::ostream& os, const double* data, int64_t n) {
  const BlockFormat f = choose_format(data, n);
  apply(os, f);
  if (f.scale != 1) write_scale(os, f);
  for (int64_t i = 0; i < n; ++i) os << std::setw(int(f.width)) << data[i] / f.scale << std::endl;
}

// The trailing matrices of a tensor of 3 or more dims, each headed "(i,j,.,.) = " with
// 1-based indices; the first index varies fastest.
void write_matrices(std::ostream& os, const double* data, ember::IntArrayRef sizes,
                    int64_t linesize) {
  const size_t outer = sizes.size() - 2;
  const int64_t rows = sizes[outer], cols = sizes[outer + 1];
  // Row-major strides of the outer dims, counted in matrices.
  std::vector<int64_t> stride(outer, 1), index(outer, 0);
  for (size_t d = outer - 1; d > 0; --d) stride[d - 1] = stride[d] * sizes[d];
  for (bool first = true;; first = false) {
    if (!first) os << std::endl;
    os << '(';
    int64_t matrix = 0;
    for (size_t d = 0; d < outer; ++d) {
      os << index[d] + 1 << ',';
      matrix += index[d] * stride[d];
    }
    os << ".,.) = " << std::endl;
    write_matrix(os, data + matrix * rows * cols, rows, cols, linesize, /*indent=*/1);
    size_t d = 0;
    while (d < outer && ++index[d] == sizes[d]) index[d++] = 0;
    if (d == outer) return;
  }
}

// Restores what printing changes of the stream's format (flags, precision, fill) and the
// width still pending when printing began, which LibTorch leaves pending afterwards too. Saved
// field by field: copyfmt into a spare std::ios would throw when the caller's stream has
// exceptions enabled, as the spare has no buffer.
class FormatGuard {
 public:
  explicit FormatGuard(std::ostream& os)
      : os_(os),
        flags_(os.flags()),
        precision_(os.precision()),
        width_(os.width()),
        fill_(os.fill()) {}
  ~FormatGuard() {
    os_.flags(flags_);
    os_.precision(precision_);
    os_.width(width_);
    os_.fill(fill_);
  }
  FormatGuard(const FormatGuard&) = delete;
  FormatGuard& operator=(const FormatGuard&) = delete;

 private:
  std::ostream& os_;
  std::ios::fmtflags flags_;
  std::streamsize precision_, width_;
  char fill_;
};

}  // namespace

std::string type_string(const Tensor& t) {
  return c10::DeviceTypeName(t.device().type()) + c10::toString(t.dtype()) + "Type";
}

void print_tensor(std::ostream& os, const Tensor& t) { at::print(os, t, 80); }

void print_dtype(std::ostream& os, ember::Dtype t) {
  // The names GCC's __PRETTY_FUNCTION__ gives each element type, which TypeMeta reports.
  static const char* const names[ember::kNumDtypes] = {
      "bool",      "unsigned char", "signed char",    "short int", "int",
      "long int",  "c10::Half",     "c10::BFloat16", "float",     "double"};
  os << names[int(t)];
}

}  // namespace torch::detail

namespace c10 {

const char* toString(ember::ScalarType t) {
  switch (t) {
    case ember::kBool:
      return "Bool";
    case ember::kUInt8:
      return "Byte";
    case ember::kInt8:
      return "Char";
    case ember::kInt16:
      return "Short";
    case ember::kInt32:
      return "Int";
    case ember::kInt64:
      return "Long";
    case ember::kFloat16:
      return "Half";
    case ember::kBFloat16:
      return "BFloat16";
    case ember::kFloat32:
      return "Float";
    case ember::kFloat64:
      return "Double";
  }
  ember::fail("c10::toString", "expected one of ember's ten dtypes, got ScalarType ", int(t));
}

std::ostream& operator<<(std::ostream& os, Layout) { return os << "Strided"; }

std::ostream& operator<<(std::ostream& os, const TensorOptions& options) {
  auto mark = [](bool set) { return set ? "" : " (default)"; };
  os << "TensorOptions(dtype=";
  torch::detail::print_dtype(os, options.dtype());
  return os << mark(options.has_dtype()) << ", device=" << options.device() << mark(options.has_device())
            << ", layout=" << options.layout() << mark(options.has_layout())
            << ", requires_grad=" << (options.requires_grad() ? "true" : "false")
            << mark(options.has_requires_grad())
            << ", pinned_memory=false (default), memory_format=(nullopt))";
}

}  // namespace c10

std::ostream& ember::operator<<(std::ostream& os, const ember::TensorOptions& options) {
  return os << c10::TensorOptions(options);
}

namespace c10 {

std::string DeviceTypeName(ember::DeviceType d, bool lower_case) {
  switch (d) {
    case ember::kCPU:
      return lower_case ? "cpu" : "CPU";
    case ember::kCUDA:
      return lower_case ? "cuda" : "CUDA";
  }
  ember::fail("c10::DeviceTypeName", "expected DeviceType CPU or CUDA, got ", int(d));
}

}  // namespace c10

namespace at {

std::ostream& print(std::ostream& stream, const ember::Tensor& t, int64_t linesize) {
  using namespace torch::detail;
  FormatGuard guard(stream);
  if (!t.defined()) return stream << "[ Tensor (undefined) ]";
  // LibTorch reads every dtype as double; detached, so printing records nothing for autograd.
  const ember::Tensor values = t.detach().to(ember::kCPU, ember::kFloat64).contiguous();
  const double* data = values.data_ptr<double>();
  const ember::IntArrayRef sizes = t.sizes();
  if (t.dim() == 0) {
    stream << std::defaultfloat << data[0] << std::endl;
  } else if (t.numel() > 0) {
    if (t.dim() == 1) {
      write_vector(stream, data, sizes[0]);
    } else if (t.dim() == 2) {
      write_matrix(stream, data, sizes[0], sizes[1], linesize, /*indent=*/0);
    } else {
      write_matrices(stream, data, sizes, linesize);
    }
  }
  stream << "[ " << type_string(t) << '{';
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d > 0) stream << ',';
    stream << sizes[d];
  }
  return stream << "} ]";
}

void print(const ember::Tensor& t, int64_t linesize) { print(std::cout, t, linesize); }

}  // namespace at
