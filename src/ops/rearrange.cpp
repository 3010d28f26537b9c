// Rearranging and searching: flip, roll, tril/triu, diag, diag_embed, trace, repeat_interleave,
// meshgrid, one_hot, searchsorted/bucketize and unique: checks, shapes and autograd here, the
// element work in each device's kernels (backend/rearrange_kernels.h).
#include <algorithm>
#include <cmath>

#include "backend/family_kernel.h"
#include "core/op_entry.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/promotion.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/op_prelude.h"
#include "ops/view.h"

namespace ember {

namespace {
// Kernel `entry` of the device of `t`.
template <class Fn>
Fn rearrange_kernel(const char* op, const Tensor& t, Fn backend::RearrangeKernels::*entry) {
  return backend::kernel(op, t.device(), &backend::Backend::rearrange, entry);
}
}  // namespace

// ── flip / roll ────────────────────────────────────────────────────────────────────────────

Tensor flip(const Tensor& t, IntArrayRef dims) {
  std::vector<bool> flipped(size_t(std::max<int64_t>(t.dim(), 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, t.dim(), "flip");
    EMBER_CHECK(!flipped[size_t(w)], "flip", "dim ", w,
                " appears multiple times in the list of dims");
    flipped[size_t(w)] = true;
  }
  Recorder rec("flip", {&t});
  Tensor out = empty(t.sizes(), t.options());
  if (rec)
    rec.record("FlipBackward0", {out}, {}, [d = DimVector(dims)](const Grads& g, const Saved&) {
      return TensorList{g[0].flip(d)};
    });
  if (t.numel() == 0) return out;
  DimVector wrapped;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (flipped[size_t(d)]) wrapped.push_back(d);
  rearrange_kernel("flip", t, &backend::RearrangeKernels::flip)(out, t, wrapped);
  return out;
}

Tensor fliplr(const Tensor& t) {
  EMBER_CHECK(t.dim() >= 2, "fliplr", "Input must be >= 2-d.");
  return flip(t, {1});
}

Tensor flipud(const Tensor& t) {
  EMBER_CHECK(t.dim() >= 1, "flipud", "Input must be >= 1-d.");
  return flip(t, {0});
}

Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll",
                "shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    Recorder rec("roll", {&t});
    Tensor out = roll(t.reshape({-1}), shifts, {0}).view(t.sizes());
    if (rec)
      rec.record("RollBackward0", {out}, {}, [s = -shifts[0]](const Grads& g, const Saved&) {
        return TensorList{g[0].roll({s}, {})};
      });
    return out;
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll",
              "shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  Recorder rec("roll", {&t});
  Tensor cur = t;
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = wrap_dim(dims[k], t.dim(), "roll"), n = cur.size(d);
    const int64_t s = n == 0 ? 0 : ((shifts[k] % n) + n) % n;
    // out[(i + s) % n] = in[i]: two block copies.
    Tensor out = empty(cur.sizes(), cur.options());
    copy_into(out.narrow(d, s, n - s), cur.narrow(d, 0, n - s));
    copy_into(out.narrow(d, 0, s), cur.narrow(d, n - s, s));
    cur = out;
  }
  if (cur.is_same(t)) cur = t.clone();  // no dims: still a new tensor
  if (rec) {
    DimVector back;
    for (int64_t s : shifts) back.push_back(-s);
    rec.record("RollBackward0", {cur}, {},
               [back, d = DimVector(dims)](const Grads& g, const Saved&) {
                 return TensorList{g[0].roll(back, d)};
               });
  }
  return cur;
}

Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  return ember::roll(*this, shifts, dims);
}

// ── triangles and diagonals ────────────────────────────────────────────────────────────────

namespace {

Tensor triangle(const Tensor& t, int64_t k, bool lower, const char* op) {
  EMBER_CHECK(t.dim() >= 2, op, "input tensor must have at least 2 dimensions, got ", t.dim());
  const Tensor s = t.contiguous();
  Tensor out = empty(t.sizes(), t.options());
  if (out.numel() == 0) return out;
  rearrange_kernel(op, t, &backend::RearrangeKernels::triangle)(out, s, k, lower);
  return out;
}

}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) {
  Recorder rec("tril", {&t});
  Tensor out = triangle(t, diagonal, true, "tril");
  if (rec)
    rec.record("TrilBackward0", {out}, {}, [diagonal](const Grads& g, const Saved&) {
      return TensorList{g[0].tril(diagonal)};
    });
  return out;
}

Tensor triu(const Tensor& t, int64_t diagonal) {
  Recorder rec("triu", {&t});
  Tensor out = triangle(t, diagonal, false, "triu");
  if (rec)
    rec.record("TriuBackward0", {out}, {}, [diagonal](const Grads& g, const Saved&) {
      return TensorList{g[0].triu(diagonal)};
    });
  return out;
}
Tensor Tensor::tril(int64_t diagonal) const { return ember::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return ember::triu(*this, diagonal); }

Tensor diag(const Tensor& t, int64_t diagonal) {
  Recorder rec("diag", {&t});
  Tensor out;
  if (t.dim() == 1) {
    const int64_t n = t.size(0) + std::abs(diagonal);
    out = zeros({n, n}, t.options());
    copy_into(out.diagonal(diagonal), t);
  } else {
    EMBER_CHECK(t.dim() == 2, "diag", "Supports 1D or 2D tensors. Got ", t.dim(), "D");
    out = t.diagonal(diagonal).clone();
  }
  if (rec)
    rec.record("DiagBackward0", {out}, {},
               [diagonal, in = DimVector(t.sizes())](const Grads& g, const Saved&) {
                 if (in.size() == 1) return TensorList{g[0].diagonal(diagonal)};
                 return TensorList{
                     view_scatter("DiagonalBackwardBackward0", g[0], in,
                                  [diagonal](const Tensor& x) { return x.diagonal(diagonal); })};
               });
  return out;
}

Tensor diag_embed(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_CHECK(t.dim() >= 1, "diag_embed", "expected a tensor with at least 1 dimension");
  const int64_t nd = t.dim() + 1;
  dim1 = wrap_dim(dim1, nd, "diag_embed");
  dim2 = wrap_dim(dim2, nd, "diag_embed");
  EMBER_CHECK(dim1 != dim2, "diag_embed", "diagonal dimensions cannot be identical ", dim1, ", ",
              dim2);
  const int64_t n = t.size(-1) + std::abs(offset);
  DimVector shape;
  for (int64_t d = 0, lead = 0; d < nd; ++d)
    shape.push_back(d == dim1 || d == dim2 ? n : t.size(lead++));
  Recorder rec("diag_embed", {&t});
  Tensor out = zeros(shape, t.options());
  copy_into(out.diagonal(offset, dim1, dim2), t);  // diagonal() puts the diagonal dim last
  if (rec)
    rec.record("DiagEmbedBackward0", {out}, {}, [offset, dim1, dim2](const Grads& g, const Saved&) {
      return TensorList{g[0].diagonal(offset, dim1, dim2)};
    });
  return out;
}

Tensor trace(const Tensor& t) {
  EMBER_CHECK(t.dim() == 2, "trace", "expected a matrix, but got tensor with dim ", t.dim());
  const bool integral = is_integral(t.dtype(), /*include_bool=*/true);
  Recorder rec("trace", {&t});
  if (rec.autocast()) return trace(rec.cast(0));
  Tensor out = empty({}, {.dtype = integral ? kInt64 : t.dtype(), .device = t.device()});
  rearrange_kernel("trace", t, &backend::RearrangeKernels::trace)(out, t);
  if (rec)
    rec.record("TraceBackward0", {out}, {},
               [in = DimVector(t.sizes())](const Grads& g, const Saved&) {
                 // g on the diagonal of a matrix of the input's shape.
                 const Tensor d = g[0].expand({std::min(in[0], in[1])});
                 return TensorList{view_scatter("DiagonalBackwardBackward0", d, in,
                                                [](const Tensor& x) { return x.diagonal(); })};
               });
  return out;
}

// ── repeat_interleave / meshgrid / one_hot ─────────────────────────────────────────────────

Tensor repeat_interleave(const Tensor& repeats) {
  OpScope scope("repeat_interleave", {&repeats});
  EMBER_CHECK(repeats.dim() == 1, "repeat_interleave",
              "repeat_interleave only accept 1D vector as repeat, got ", repeats.dim(), "-D");
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, "repeat_interleave",
              "repeats has to be Long or Int tensor, got ", repeats.dtype());
  const Tensor r = repeats.to(kInt64).contiguous();
  return rearrange_kernel("repeat_interleave", r,
                          &backend::RearrangeKernels::repeat_interleave)(r);
}

Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim) {
  const Tensor input = dim ? t : t.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, t.dim(), "repeat_interleave") : 0;
  const int64_t size = input.dim() == 0 ? 1 : input.size(d);
  Tensor r = repeats;
  EMBER_CHECK(r.dim() <= 1, "repeat_interleave", "repeats must be 0-dim or 1-dim tensor");
  if (r.numel() == 1) r = r.reshape({1}).expand({size});
  EMBER_CHECK(r.size(0) == size, "repeat_interleave",
              "repeats must have the same size as input along dim, but got repeats.size(0) = ",
              r.size(0), " and input.size(", d, ") = ", size);
  return index_select(input, d, repeat_interleave(r.contiguous()));
}

Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim) {
  EMBER_CHECK(repeats >= 0, "repeat_interleave", "repeats can not be negative");
  return repeat_interleave(t, full({}, repeats, {.dtype = kInt64, .device = t.device()}), dim);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing) {
  EMBER_CHECK(!tensors.empty(), "meshgrid", "expects a non-empty TensorList");
  EMBER_CHECK(indexing == "ij" || indexing == "xy", "meshgrid",
              "indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.dim() <= 1, "meshgrid",
                "Expected 0D or 1D tensor in the tensor list but got: ", t.dim(), "-D");
    EMBER_CHECK(t.dtype() == tensors[0].dtype() && t.device() == tensors[0].device(), "meshgrid",
                "Expected all tensors in the tensor list to have the same dtype and device");
  }
  // "xy" (Cartesian) builds the grid from the first two inputs swapped, then swaps the first
  // two outputs back: out[0] varies along dim 1, out[1] along dim 0.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> in = tensors;
  if (swap) std::swap(in[0], in[1]);
  DimVector shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> out;
  for (size_t i = 0; i < in.size(); ++i) {
    DimVector view(in.size(), 1);
    view[i] = -1;
    out.push_back(in[i].reshape(view).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

Tensor one_hot(const Tensor& t, int64_t num_classes) {
  OpScope scope("one_hot", {&t});
  EMBER_CHECK(t.dtype() == kInt64, "one_hot", "one_hot is only applicable to index tensor.");
  const Tensor s = t.contiguous();
  if (s.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "one_hot",
                "Can not infer total number of classes from empty tensor.");
    DimVector shape(t.sizes());
    shape.push_back(num_classes);
    return empty(shape, {.dtype = kInt64, .device = t.device()});
  }
  return rearrange_kernel("one_hot", s, &backend::RearrangeKernels::one_hot)(s, num_classes);
}

// ── searchsorted / bucketize ───────────────────────────────────────────────────────────────

Tensor searchsorted(const Tensor& seq, const Tensor& values, SearchsortedOptions o) {
  bool right = o.right;
  if (o.side) {
    EMBER_CHECK(*o.side == "left" || *o.side == "right", "searchsorted",
                "side can only be 'left' or 'right' but got ", *o.side);
    EMBER_CHECK(!(o.right && *o.side == "left"), "searchsorted",
                "side and right can't be set to opposites, got side of left while right was True");
    right = *o.side == "right";
  }
  OpScope scope("searchsorted", {&seq, &values, &o.sorter});
  EMBER_CHECK(seq.dim() >= 1, "searchsorted",
              "boundaries tensor should have positive dimension, but got 0 dimension");
  bool batch_ok = seq.dim() == 1 || seq.dim() == values.dim();
  for (int64_t d = 0; batch_ok && seq.dim() > 1 && d < seq.dim() - 1; ++d)
    batch_ok = seq.size(d) == values.size(d);
  EMBER_CHECK(batch_ok, "searchsorted",
              "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
              "tensor and input value tensor must match, but we got boundaries tensor ",
              seq.sizes(), " and input value tensor ", values.sizes());
  Tensor sorter;
  if (o.sorter.defined()) {
    EMBER_CHECK(o.sorter.dtype() == kInt64, "searchsorted",
                "sorter must be a tensor of long dtype but got ", o.sorter.dtype());
    EMBER_CHECK(o.sorter.sizes() == seq.sizes(), "searchsorted",
                "boundary and sorter must have the same size, but got boundary tensor ",
                seq.sizes(), " and got sorter tensor ", o.sorter.sizes());
    sorter = o.sorter.contiguous();
  }
  const Dtype common = result_type(seq, values);
  const Tensor bd = seq.to(common).contiguous(), vals = values.to(common).contiguous();
  Tensor out = empty(values.sizes(), {.dtype = kInt64, .device = values.device()});
  rearrange_kernel("searchsorted", bd, &backend::RearrangeKernels::searchsorted)(out, bd, vals,
                                                                                sorter, right);
  return o.out_int32 ? out.to(kInt32) : out;
}

Tensor searchsorted(const Tensor& seq, Scalar value, SearchsortedOptions o) {
  const Tensor v = full({}, value, {.dtype = result_type(seq, value), .device = seq.device()});
  return searchsorted(seq, v, o);
}

Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize",
              "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, input, {.out_int32 = out_int32, .right = right});
}

// ── unique ─────────────────────────────────────────────────────────────────────────────────

namespace {

UniqueResult unique_elements(const Tensor& t, const UniqueOptions& o) {
  const Tensor s = t.contiguous();
  backend::UniqueElements u = rearrange_kernel("unique", s, &backend::RearrangeKernels::unique)(
      s, o.return_inverse, o.return_counts);
  return {std::move(u.values), std::move(u.inverse), std::move(u.counts)};
}

// Unique slices along dim, ordered lexicographically (PyTorch's _unique_dim).
UniqueResult unique_slices(const Tensor& t, int64_t dim, const UniqueOptions& o) {
  dim = wrap_dim(dim, t.dim(), "unique");
  const Tensor x = t.movedim(dim, 0).contiguous();
  const backend::UniqueRows rows =
      rearrange_kernel("unique", x, &backend::RearrangeKernels::unique_rows)(x);
  UniqueResult r;
  r.output = index_select(x, 0, rows.first).movedim(0, dim).contiguous();
  if (o.return_inverse) r.inverse_indices = rows.inverse;
  if (o.return_counts) r.counts = rows.counts;
  return r;
}

}  // namespace

UniqueResult unique(const Tensor& t, UniqueOptions options) {
  OpScope scope("unique", {&t});
  return options.dim ? unique_slices(t, *options.dim, options) : unique_elements(t, options);
}

}  // namespace ember
