// Printing: repr(t) and operator<< write exactly what Python's repr(t) writes in PyTorch 1.13
// (torch/_tensor_str.py with the default options: precision 4, threshold 1000, edgeitems 3,
// linewidth 80). Only the shown elements are read, straight from the strided view. It sits above
// core, beside the ops, because a result's repr names its grad_fn (an autograd node).
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/autograd.h"
#include "ember/tensor.h"
#include "ember/print_hooks.h"

namespace ember {
namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;  // more elements than this are summarised with "..."
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;
constexpr int64_t kEllipsis = -1;

// Indices shown along a dim of size n: all of them, or the first and last kEdgeItems around
// kEllipsis. Used both to read elements and to lay them out, so the two always agree.
std::vector<int64_t> shown_indices(int64_t n, bool summarize) {
  std::vector<int64_t> idx;
  const bool cut = summarize && n > 2 * kEdgeItems;
  for (int64_t i = 0; i < n; ++i) {
    if (cut && i == kEdgeItems) {
      idx.push_back(kEllipsis);
      i = n - kEdgeItems;
    }
    idx.push_back(i);
  }
  return idx;
}

// The shown elements in row-major order: floating dtypes as double (every half, float and
// double value is exact in it), integral and bool as int64 (double would round large int64s).
struct Elements {
  std::vector<double> f;
  std::vector<int64_t> i;
};

template <class T>
void gather(const T* p, IntArrayRef sizes, IntArrayRef strides, size_t d, bool summarize,
            Elements& out) {
  if (d == sizes.size()) {
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      out.f.push_back(convert<double>(*p));
    } else {
      out.i.push_back(convert<int64_t>(*p));
    }
    return;
  }
  for (int64_t k : shown_indices(sizes[d], summarize)) {
    if (k != kEllipsis) gather(p + k * strides[d], sizes, strides, d + 1, summarize, out);
  }
}

// Fixed or scientific with `precision` digits, like Python's "{:.4f}" / "{:.4e}": to_chars
// rounds the exact binary value correctly as Python does, and ignores the C locale.
std::string decimal_str(double v, bool scientific, int precision) {
  if (std::isnan(v)) return "nan";  // Python never shows the sign of a NaN
  char buf[512];                    // the longest double in fixed notation has 309 digits
  const auto fmt = scientific ? std::chars_format::scientific : std::chars_format::fixed;
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, fmt, precision);
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// Formatted elements, each padded to `width`. A cell may be wider ("-0." or "nan" in int_mode);
// rows still wrap by `width`, as PyTorch's formatter.width() does.
struct Cells {
  std::vector<std::string> text;
  size_t width = 1;
};

// PyTorch's _Formatter for floating tensors: one mode for all shown elements, chosen from the
// nonzero finite ones. int_mode: all are integers ("1.", "-3."); sci_mode: the magnitudes span
// more than 1000x, exceed 1e8, or (outside int_mode) go below 1e-4.
Cells format_floats(const std::vector<double>& values) {
  bool int_mode = true, sci_mode = false;
  double lo = INFINITY, hi = 0;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    int_mode = int_mode && v == std::ceil(v);
    lo = std::min(lo, std::fabs(v));
    hi = std::max(hi, std::fabs(v));
  }
  if (hi > 0) sci_mode = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode && lo < 1.0e-4);
  auto format = [&](double v) {
    if (sci_mode) return decimal_str(v, true, kPrecision);
    if (!int_mode) return decimal_str(v, false, kPrecision);
    // Integral values keep a trailing "." to show the dtype is floating; nan and inf do not.
    return decimal_str(v, false, 0) + (std::isfinite(v) ? "." : "");
  };
  // The width comes from the nonzero finite values only; "-0." or "nan" may stick out.
  Cells cells;
  for (double v : values) {
    if (std::isfinite(v) && v != 0) cells.width = std::max(cells.width, format(v).size());
  }
  for (double v : values) cells.text.push_back(pad_left(format(v), cells.width));
  return cells;
}

// Integers print as Python ints, bools as True/False; all right-aligned to the widest.
Cells format_ints(const std::vector<int64_t>& values, bool is_bool) {
  Cells cells;
  for (int64_t v : values) {
    cells.text.push_back(is_bool ? (v ? "True" : "False") : std::to_string(v));
    cells.width = std::max(cells.width, cells.text.back().size());
  }
  for (std::string& c : cells.text) c = pad_left(c, cells.width);
  return cells;
}

// Lays out the formatted cells as nested brackets, consuming them in order (_tensor_str_with_
// formatter): rows wrap at the line width, inner blocks are separated by dims-1 newlines.
struct Layout {
  IntArrayRef sizes;
  bool summarize;
  const Cells& cells;
  size_t next = 0;

  std::string block(size_t d, int64_t indent) {
    const std::vector<int64_t> idx = shown_indices(sizes[d], summarize);
    const int64_t dims_left = int64_t(sizes.size() - d);
    std::string out = "[";
    if (dims_left == 1) {
      // Each element takes its width plus ", "; " ..." counts as an element too.
      const int64_t per_line =
          std::max<int64_t>(1, (kLineWidth - indent) / int64_t(cells.width + 2));
      for (size_t k = 0; k < idx.size(); ++k) {
        if (k > 0) {
          out += ',';
          if (k % per_line == 0)
            out.append(1, '\n').append(indent + 1, ' ');
          else
            out += ' ';
        }
        if (idx[k] == kEllipsis)
          out += " ...";
        else
          out += cells.text[next++];
      }
    } else {
      std::string sep = ",";
      sep.append(dims_left - 1, '\n').append(indent + 1, ' ');
      for (size_t k = 0; k < idx.size(); ++k) {
        if (k > 0) out += sep;
        if (idx[k] == kEllipsis)
          out += "...";
        else
          out += block(d + 1, indent + 1);
      }
    }
    return out + "]";
  }
};

// The bracketed values of a non-empty CPU tensor whose first line starts at column `indent`.
std::string tensor_str(const Tensor& t, int64_t indent) {
  const bool summarize = t.numel() > kThreshold;
  Elements e;
  dispatch(t.dtype(), "print",
           [&]<class T>() { gather(t.data_ptr<T>(), t.sizes(), t.strides(), 0, summarize, e); });
  const Cells cells =
      t.is_floating_point() ? format_floats(e.f) : format_ints(e.i, t.dtype() == kBool);
  if (t.dim() == 0) return cells.text[0];
  Layout layout{t.sizes(), summarize, cells};
  return layout.block(0, indent);
}

// Python's str(tuple): "(2, 0, 4)", "(0,)".
std::string tuple_str(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t d = 0; d < sizes.size(); ++d) s += (d ? ", " : "") + std::to_string(sizes[d]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

// Appends ", suffix" or, past the line width, ",\n<indent>suffix" (_add_suffixes).
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int64_t indent) {
  // PyTorch counts two more than the last line's length; keep that so it wraps at the same place.
  const size_t newline = s.rfind('\n');
  int64_t line = int64_t(s.size()) - (newline == std::string::npos ? -1 : int64_t(newline)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = int64_t(suffix.size());
    if (line + len + 2 > kLineWidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      line = indent + len;
    } else {
      s += ", " + suffix;
      line += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

std::string repr(const Tensor& t) {
  if (!t.defined()) return "[ Tensor (undefined) ]";  // as libtorch prints it
  const std::string prefix = "tensor(";
  const int64_t indent = int64_t(prefix.size());
  const std::string dtype_suffix = std::string("dtype=torch.") + dtype_name(t.dtype());
  std::vector<std::string> suffixes;
  if (!t.is_cpu()) suffixes.push_back("device='" + t.device().str() + "'");
  std::string body;
  if (t.numel() == 0) {
    // Nothing shows the dtype or the shape, so both are spelled out (only (0,) is implied).
    if (t.dim() != 1) suffixes.push_back("size=" + tuple_str(t.sizes()));
    if (t.dtype() != default_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    // The values already say "int64", "bool" or "default float" by how they look.
    if (t.dtype() != default_dtype() && t.dtype() != kInt64 && t.dtype() != kBool) {
      suffixes.push_back(dtype_suffix);
    }
    body = tensor_str(t.is_cpu() ? t : t.cpu(), indent);
  }
  // A result recorded in the graph shows its node (grad_fn=<MulBackward0>), a leaf that
  // requires grad requires_grad=True: PyTorch shows one or the other.
  if (auto fn = t.grad_fn())
    suffixes.push_back("grad_fn=<" + fn->name() + ">");
  else if (t.requires_grad())
    suffixes.emplace_back("requires_grad=True");
  return add_suffixes(prefix + body, suffixes, indent);
}

namespace {
std::atomic<TensorPrinter> installed_printer{nullptr};
}  // namespace

void set_tensor_printer(TensorPrinter printer) { installed_printer.store(printer); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (TensorPrinter printer = installed_printer.load(std::memory_order_relaxed)) {
    printer(os, t);
    return os;
  }
  return os << repr(t);
}

}  // namespace ember
