// Views: every op here returns a tensor sharing the input's storage (and version counter) with a
// new layout computed from the old one; no data moves.
#include "ops/view.h"

#include <algorithm>
#include <numeric>

#include "autograd/autograd_meta.h"
#include "core/tensor_impl_mutators.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/op_prelude.h"

namespace ember {

using ViewFn = std::function<Tensor(const Tensor&)>;

namespace {

// Backward of the views that only regroup elements (view, reshape, unflatten, ...).
autograd::BackwardFn reshape_back(IntArrayRef sizes) {
  return [sz = DimVector(sizes)](const Grads& g, const Saved&) {
    return TensorList{g[0].reshape(sz)};
  };
}

}  // namespace

// The backward of a view op (select, slice, diagonal, unfold, ...): zeros of the input's shape
// with the gradient written into (or, for views that repeat elements, added into) the same view
// of it. Recorded as an op of its own, whose backward is the view again (double backward).
Tensor view_scatter(const char* node, const Tensor& g, IntArrayRef sizes, ViewFn view_fn,
                    bool overlapping) {
  Recorder rec(node, {&g});
  Tensor out;
  if (!overlapping) {
    out = zeros(sizes, g.options());
    copy_into(view_fn(out), g);
  } else {
    const int64_t n = prod(sizes);
    const Tensor pos = arange(n, {.dtype = kInt64}).view(sizes);
    const Tensor idx = view_fn(pos).reshape({-1});
    out = zeros({n}, g.options()).index_add_(0, idx, g.reshape({-1})).view(sizes);
  }
  if (rec)
    rec.record(node, {out}, {},
               [view_fn](const Grads& gg, const Saved&) { return TensorList{view_fn(gg[0])}; });
  return out;
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  Tensor out(make_intrusive<TensorImpl>(base.storage(), base.dtype(), sizes, strides, offset));
  // Floating views remember their root base for in-place ops through them (a refcount, cheap).
  if (base.is_floating_point()) {
    const auto& root = base.impl()->view_base();
    TensorImplMutators::set_view_base(*out.impl(), root ? root : base.impl_ptr());
    // Views made in grad mode follow later in-place writes to their base (as PyTorch's
    // differentiable views). A view made under no_grad, or of such a view, keeps no history and
    // may not be used in grad mode once its base is written (Note [In-place on views]).
    if (is_grad_enabled() && !base.impl()->view_made_without_grad())
      TensorImplMutators::mark_view_history_current(*out.impl());
    else
      TensorImplMutators::mark_view_made_without_grad(*out.impl());
  }
  return out;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = std::max<int64_t>(ndim, 1);  // a 0-d tensor accepts dims -1 and 0
  EMBER_CHECK(dim >= -n && dim < n, op, "dimension out of range (expected to be in range of [", -n,
              ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

// wrap_dim lets a 0-d tensor take dim 0 or -1 (as reductions do), but it has no size to read.
int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, "size", "dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim(), "size")];
}

int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, "stride", "dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim(), "stride")];
}

DimVector infer_size(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector out(shape);
  int64_t known = 1, infer_at = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(infer_at < 0, op, "only one dimension can be inferred");
      infer_at = int64_t(d);
    } else {
      EMBER_CHECK(shape[d] >= 0, op, "invalid shape dimension ", shape[d]);
      known *= shape[d];
    }
  }
  if (infer_at >= 0) {
    EMBER_CHECK(known != 0 || numel != 0, op, "cannot reshape tensor of 0 elements into shape ",
                shape,
                " because the unspecified dimension size -1 can be any value and is "
                "ambiguous");
    EMBER_CHECK(known != 0 && numel % known == 0, op, "shape ", shape,
                " is invalid for input of size ", numel);
    out[infer_at] = numel / known;
  } else {
    EMBER_CHECK(known == numel, op, "shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides,
                                      IntArrayRef new_sizes) {
  if (sizes.empty()) return DimVector(new_sizes.size(), 1);
  const int64_t numel = prod(sizes);
  if (numel == 0 && sizes == new_sizes) return DimVector(strides);
  if (numel == 0) return contiguous_strides(new_sizes);
  // Walk both shapes from the innermost dim, matching "chunks" of the old shape that are
  // contiguous among themselves; each chunk must be covered exactly by a run of new dims.
  DimVector out(new_sizes.size());
  int64_t view_d = int64_t(new_sizes.size()) - 1;
  int64_t chunk_stride = strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    const bool chunk_ends =
        d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      out[view_d] = view_numel * chunk_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = strides[d - 1];
      tensor_numel = view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

Tensor Tensor::view(IntArrayRef sizes) const {
  const DimVector shape = infer_size(sizes, numel(), "view");
  auto s = view_strides(this->sizes(), strides(), shape);
  EMBER_CHECK(s.has_value(), "view",
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  Recorder rec("view", {this});
  Tensor out = make_view(*this, shape, *s, storage_offset());
  if (rec) rec.record("ViewBackward0", {out}, {}, reshape_back(this->sizes()));
  return out;
}

Tensor Tensor::view(Dtype dtype) const {
  EMBER_CHECK(itemsize(dtype) == element_size(), "view", "viewing a tensor of ", this->dtype(),
              " as ", dtype, " needs equal element sizes (", element_size(), " vs ",
              itemsize(dtype), ")");
  return Tensor(make_intrusive<TensorImpl>(storage(), dtype, sizes(), strides(), storage_offset()));
}

Tensor Tensor::reshape(IntArrayRef sizes) const {
  const DimVector shape = infer_size(sizes, numel(), "reshape");
  if (auto s = view_strides(this->sizes(), strides(), shape)) {
    Recorder rec("reshape", {this});
    Tensor out = make_view(*this, shape, *s, storage_offset());
    if (rec) rec.record("ReshapeAliasBackward0", {out}, {}, reshape_back(this->sizes()));
    return out;
  }
  // As PyTorch: _unsafe_view(clone(contiguous)), i.e. CloneBackward0 under UnsafeViewBackward0.
  const Tensor c = contiguous();
  Recorder rec("reshape", {&c});
  Tensor out = make_view(c, shape, contiguous_strides(shape), c.storage_offset());
  if (rec) rec.record("UnsafeViewBackward0", {out}, {}, reshape_back(this->sizes()));
  return out;
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> offset) const {
  EMBER_CHECK(sizes.size() == strides.size(), "as_strided", "mismatch in length of strides ",
              strides, " and shape ", sizes);
  const int64_t off = offset.value_or(storage_offset());
  EMBER_CHECK(off >= 0, "as_strided", "invalid storage offset ", off);
  int64_t extent = off + 1;
  bool empty = false, overflow = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0 && strides[d] >= 0, "as_strided",
                "negative sizes or strides are not supported, got sizes ", sizes, " strides ",
                strides);
    empty |= sizes[d] == 0;
    int64_t span;
    overflow |= __builtin_mul_overflow(sizes[d] - 1, strides[d], &span);
    overflow |= __builtin_add_overflow(extent, span, &extent);
  }
  overflow |= __builtin_mul_overflow(extent, element_size(), &extent);
  EMBER_CHECK(empty || !overflow, "as_strided",
              "Storage size calculation overflowed with sizes=", sizes, " and strides=", strides);
  EMBER_CHECK(empty || extent <= int64_t(storage()->nbytes()), "as_strided", "setStorage: sizes ",
              sizes, ", strides ", strides, ", storage offset ", off, " require ", extent,
              " bytes but the storage holds ", storage()->nbytes());
  Recorder rec("as_strided", {this});
  Tensor out = make_view(*this, sizes, strides, off);
  if (rec) {
    // Which element of self each output element reads (-1: outside self), through a map of
    // the storage; the gradient is added back along it.
    const int64_t n = numel();
    Tensor map =
        full({int64_t(storage()->nbytes() / size_t(element_size()))}, -1, {.dtype = kInt64});
    Tensor in_pos = make_view(map, this->sizes(), this->strides(), storage_offset());
    copy_into(in_pos, arange(n, {.dtype = kInt64}).view(this->sizes()));
    Tensor idx = make_view(map, sizes, strides, off).reshape({-1});
    idx = idx.masked_fill(idx.lt(0), n);  // a spare slot, dropped below
    rec.record("AsStridedBackward0", {out}, {},
               [idx, n, sz = DimVector(this->sizes())](const Grads& g, const Saved&) {
                 Tensor flat = zeros({n + 1}, g[0].options());
                 flat = index_add(flat, 0, idx, g[0].reshape({-1}));
                 return TensorList{flat.narrow(0, 0, n).view(sz)};
               });
  }
  return out;
}

namespace {

// The views below are also taken in place (Tensor::unsqueeze_ & co.), recorded under PyTorch's
// names for those (`node`).
Tensor transposed(const Tensor& self, int64_t d0, int64_t d1, const char* node) {
  const int64_t n = self.dim();
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  Recorder rec("transpose", {&self});
  DimVector sz(self.sizes()), st(self.strides());
  if (n > 0) {
    std::swap(sz[d0], sz[d1]);
    std::swap(st[d0], st[d1]);
  }
  Tensor out = make_view(self, sz, st, self.storage_offset());
  if (rec)
    rec.record(node, {out}, {}, [d0, d1](const Grads& g, const Saved&) {
      return TensorList{g[0].transpose(d0, d1)};
    });
  return out;
}

Tensor matrix_transposed(const Tensor& self, const char* op, const char* node) {
  EMBER_CHECK(self.dim() <= 2, op, op, "() expects a tensor with <= 2 dimensions, but self is ",
              self.dim(), "D");
  Recorder rec("t", {&self});
  Tensor out = self.dim() < 2 ? self.transpose(0, 0) : self.transpose(0, 1);
  if (rec)
    rec.record(node, {out}, {},
               [](const Grads& g, const Saved&) { return TensorList{g[0].t()}; });
  return out;
}

Tensor unsqueezed(const Tensor& self, int64_t d, const char* node) {
  const int64_t n = self.dim();
  d = wrap_dim(d, n + 1, "unsqueeze");
  DimVector sz(self.sizes()), st(self.strides());
  const int64_t stride = d >= n ? 1 : sz[d] * st[d];
  sz.insert(size_t(d), 1);
  st.insert(size_t(d), stride);
  Recorder rec("unsqueeze", {&self});
  Tensor out = make_view(self, sz, st, self.storage_offset());
  if (rec)
    rec.record(node, {out}, {},
               [d](const Grads& g, const Saved&) { return TensorList{g[0].squeeze(d)}; });
  return out;
}

}  // namespace

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  return transposed(*this, d0, d1, "TransposeBackward0");
}

Tensor Tensor::permute(IntArrayRef dims) const {
  const int64_t n = dim();
  EMBER_CHECK(int64_t(dims.size()) == n, "permute",
              "number of dims don't match in permute: tensor has ", n, " dims but got ", dims);
  DimVector sz(static_cast<size_t>(n)), st(static_cast<size_t>(n)), inverse(static_cast<size_t>(n));
  std::vector<bool> seen(size_t(n), false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n, "permute");
    EMBER_CHECK(!seen[d], "permute", "duplicate dims are not allowed, got ", dims);
    seen[d] = true;
    sz[i] = sizes()[d];
    st[i] = strides()[d];
    inverse[d] = i;
  }
  Recorder rec("permute", {this});
  Tensor out = make_view(*this, sz, st, storage_offset());
  if (rec)
    rec.record("PermuteBackward0", {out}, {}, [inverse](const Grads& g, const Saved&) {
      return TensorList{g[0].permute(inverse)};
    });
  return out;
}

Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  const int64_t n = dim();
  source = wrap_dim(source, n, "movedim");
  destination = wrap_dim(destination, n, "movedim");
  DimVector order;
  for (int64_t d = 0; d < n; ++d)
    if (d != source) order.push_back(d);
  if (n > 0) order.insert(size_t(destination), source);
  return permute(order);
}

Tensor Tensor::t() const { return matrix_transposed(*this, "t", "TBackward0"); }

Tensor Tensor::T() const {
  DimVector order;
  for (int64_t d = dim() - 1; d >= 0; --d) order.push_back(d);
  return permute(order);
}

Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, "mT",
              "tensor.mT is only supported on matrices or batches of matrices. "
              "Got ",
              dim(), "-D tensor.");
  return transpose(-2, -1);
}

namespace {

// Drops the marked dims; the backward unsqueezes them back (in increasing order).
Tensor squeeze_dims(const Tensor& t, const std::vector<bool>& drop, const char* node) {
  Recorder rec("squeeze", {&t});
  DimVector sz, st, dropped;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (drop[d]) {
      dropped.push_back(d);
      continue;
    }
    sz.push_back(t.sizes()[d]);
    st.push_back(t.strides()[d]);
  }
  Tensor out = make_view(t, sz, st, t.storage_offset());
  if (rec)
    rec.record(node, {out}, {}, [dropped](const Grads& g, const Saved&) {
      Tensor r = g[0];
      for (int64_t d : dropped) r = r.unsqueeze(d);
      return TensorList{r};
    });
  return out;
}

}  // namespace

Tensor Tensor::squeeze() const {
  std::vector<bool> drop(size_t(dim()), false);
  for (int64_t d = 0; d < dim(); ++d) drop[d] = sizes()[d] == 1;
  return squeeze_dims(*this, drop, "SqueezeBackward0");
}

Tensor Tensor::squeeze(int64_t d) const {
  const int64_t n = dim();
  const int64_t w = wrap_dim(d, n, "squeeze");
  std::vector<bool> drop(size_t(n), false);
  if (n > 0 && sizes()[w] == 1) drop[w] = true;
  return squeeze_dims(*this, drop, "SqueezeBackward1");
}

Tensor Tensor::squeeze(IntArrayRef dims) const {
  const int64_t n = dim();
  std::vector<bool> drop(size_t(std::max<int64_t>(n, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, n, "squeeze");
    if (n > 0 && sizes()[w] == 1) drop[w] = true;
  }
  return squeeze_dims(*this, drop, "SqueezeBackward2");  // PyTorch 2's squeeze.dims
}

Tensor squeeze_inplace_named(const Tensor& t, int64_t d) {
  const int64_t n = t.dim();
  const int64_t w = wrap_dim(d, n, "squeeze_");
  std::vector<bool> drop(size_t(n), false);
  if (n > 0 && t.sizes()[w] == 1) drop[w] = true;
  return squeeze_dims(t, drop, "SqueezeBackward3");
}

Tensor Tensor::unsqueeze(int64_t d) const { return unsqueezed(*this, d, "UnsqueezeBackward0"); }

namespace {

// PyTorch's in-place view ops: `self` takes the view's sizes, strides and offset and, when the
// view was recorded, its node, so backward runs through the view's backward (PyTorch's
// *Backward1 nodes). As for any in-place op, a leaf that requires grad is refused.
Tensor& restride_(const Tensor& self, const char* op, const Tensor& view) {
  EMBER_CHECK(!(is_grad_enabled() && self.is_leaf() && self.requires_grad()), op,
              "a leaf Variable that requires grad is being used in an in-place operation.");
  Tensor& target = const_cast<Tensor&>(self);  // Note [in-place on a const handle]
  TensorImplMutators::set_layout(*target.impl(), view.sizes(), view.strides(),
                                 view.storage_offset());
  if (const auto node = view.grad_fn()) autograd::set_history(target, node, view.output_nr());
  return target;
}

}  // namespace

Tensor& Tensor::unsqueeze_(int64_t d) const {
  return restride_(*this, "unsqueeze_", unsqueezed(*this, d, "UnsqueezeBackward1"));
}

Tensor& Tensor::squeeze_() const {
  std::vector<bool> drop(size_t(dim()), false);
  for (int64_t d = 0; d < dim(); ++d) drop[d] = sizes()[d] == 1;
  return restride_(*this, "squeeze_", squeeze_dims(*this, drop, "SqueezeBackward2"));
}

Tensor& Tensor::squeeze_(int64_t d) const {
  return restride_(*this, "squeeze_", squeeze_inplace_named(*this, d));
}

Tensor& Tensor::t_() const {
  return restride_(*this, "t_", matrix_transposed(*this, "t_", "TBackward1"));
}

Tensor& Tensor::transpose_(int64_t d0, int64_t d1) const {
  return restride_(*this, "transpose_", transposed(*this, d0, d1, "TransposeBackward1"));
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const int64_t n = dim();
  start_dim = wrap_dim(start_dim, n, "flatten");
  end_dim = wrap_dim(end_dim, n, "flatten");
  EMBER_CHECK(start_dim <= end_dim, "flatten", "start_dim (", start_dim,
              ") cannot come after end_dim (", end_dim, ")");
  if (n == 0) return reshape({1});
  if (start_dim == end_dim) return *this;  // as PyTorch: the input itself
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) merged *= sizes()[d];
  shape.push_back(merged);
  for (int64_t d = end_dim + 1; d < n; ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef sizes) const {
  d = wrap_dim(d, dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten", "sizes must be non-empty");
  const DimVector inner = infer_size(sizes, this->sizes()[d], "unflatten");
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(this->sizes()[i]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) shape.push_back(this->sizes()[i]);
  return view(shape);
}

Tensor Tensor::expand(IntArrayRef target) const {
  const int64_t n = dim(), m = int64_t(target.size());
  EMBER_CHECK(m >= n, "expand", "the number of sizes provided (", m,
              ") must be greater or equal to the number of dimensions in the tensor (", n, ")");
  DimVector sz(static_cast<size_t>(m)), st(static_cast<size_t>(m));
  for (int64_t i = m - 1; i >= 0; --i) {
    const int64_t src = i - (m - n);  // aligned source dim, negative for new leading dims
    const int64_t want = target[i];
    if (src < 0) {
      EMBER_CHECK(want >= 0, "expand", "the expanded size of the tensor (", want,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = want;
      // As PyTorch: a new dim of size 1 gets the stride a contiguous layout would give it.
      st[i] = want == 1 && n > 0 ? sz[i + 1] * st[i + 1] : 0;
      continue;
    }
    const int64_t have = sizes()[src];
    if (want == -1 || want == have) {
      sz[i] = have;
      st[i] = strides()[src];
    } else {
      EMBER_CHECK(have == 1, "expand", "the expanded size of the tensor (", want,
                  ") must match the existing size (", have, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", target, ".  Tensor sizes: ", sizes());
      sz[i] = want;
      st[i] = 0;
    }
  }
  Recorder rec("expand", {this});
  Tensor out = make_view(*this, sz, st, storage_offset());
  if (rec)
    rec.record("ExpandBackward0", {out}, {},
               [in = DimVector(sizes())](const Grads& g, const Saved&) {
                 return TensorList{autograd::sum_to(g[0], in)};
               });
  return out;
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  EMBER_CHECK(dim() > 0, "narrow", "narrow() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "narrow");
  const int64_t size = sizes()[d];
  EMBER_CHECK(start >= -size && start <= size, "narrow", "start out of range (expected to be in ",
              "range of [", -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && start + length <= size, "narrow", "start (", start, ") + length (",
              length, ") exceeds dimension size (", size, ").");
  DimVector sz(sizes());
  sz[d] = length;
  Recorder rec("narrow", {this});
  Tensor out = make_view(*this, sz, strides(), storage_offset() + start * strides()[d]);
  if (rec)
    rec.record("SliceBackward0", {out}, {},
               [in = DimVector(sizes()), d, start, length](const Grads& g, const Saved&) {
                 return TensorList{
                     view_scatter("SliceBackwardBackward0", g[0], in,
                                  [=](const Tensor& t) { return t.narrow(d, start, length); })};
               });
  return out;
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  EMBER_CHECK(dim() > 0, "select", "select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  const int64_t size = sizes()[d];
  EMBER_CHECK(index >= -size && index < size, "select", "index ", index,
              " is out of bounds for dimension ", d, " with size ", size);
  if (index < 0) index += size;
  DimVector sz(sizes()), st(strides());
  sz.erase(size_t(d));
  st.erase(size_t(d));
  Recorder rec("select", {this});
  Tensor out = make_view(*this, sz, st, storage_offset() + index * strides()[d]);
  if (rec)
    rec.record(
        "SelectBackward0", {out}, {},
        [in = DimVector(sizes()), d, index](const Grads& g, const Saved&) {
          return TensorList{view_scatter("SelectBackwardBackward0", g[0], in,
                                         [=](const Tensor& t) { return t.select(d, index); })};
        });
  return out;
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> stop,
                     int64_t step) const {
  EMBER_CHECK(dim() > 0, "slice", "slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(step > 0, "slice", "slice step must be positive, got ", step);
  d = wrap_dim(d, dim(), "slice");
  const int64_t size = sizes()[d];
  // Python's clamping: negative bounds count from the end, then clamp into [0, size].
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  const int64_t b = start ? clamp(*start) : 0;
  const int64_t e = std::max(b, stop ? clamp(*stop) : size);
  DimVector sz(sizes()), st(strides());
  sz[d] = (e - b + step - 1) / step;
  st[d] *= step;
  Recorder rec("slice", {this});
  Tensor out = make_view(*this, sz, st, storage_offset() + b * strides()[d]);
  if (rec)
    rec.record(
        "SliceBackward0", {out}, {},
        [in = DimVector(sizes()), d, b, e, step](const Grads& g, const Saved&) {
          return TensorList{view_scatter("SliceBackwardBackward0", g[0], in,
                                         [=](const Tensor& t) { return t.slice(d, b, e, step); })};
        });
  return out;
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  const int64_t n = dim();
  EMBER_CHECK(n >= 2, "diagonal", "expected a tensor with at least 2 dimensions, got ", n);
  dim1 = wrap_dim(dim1, n, "diagonal");
  dim2 = wrap_dim(dim2, n, "diagonal");
  EMBER_CHECK(dim1 != dim2, "diagonal", "diagonal dimensions cannot be identical ", dim1, ", ",
              dim2);
  int64_t len, off = storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(sizes()[dim1], sizes()[dim2] - offset), 0);
    if (len) off += offset * strides()[dim2];
  } else {
    len = std::max<int64_t>(std::min(sizes()[dim1] + offset, sizes()[dim2]), 0);
    if (len) off -= offset * strides()[dim1];
  }
  DimVector sz, st;
  for (int64_t d = 0; d < n; ++d) {
    if (d == dim1 || d == dim2) continue;
    sz.push_back(sizes()[d]);
    st.push_back(strides()[d]);
  }
  sz.push_back(len);
  st.push_back(strides()[dim1] + strides()[dim2]);
  Recorder rec("diagonal", {this});
  Tensor out = make_view(*this, sz, st, off);
  if (rec)
    rec.record("DiagonalBackward0", {out}, {},
               [in = DimVector(sizes()), offset, dim1, dim2](const Grads& g, const Saved&) {
                 return TensorList{
                     view_scatter("DiagonalBackwardBackward0", g[0], in,
                                  [=](const Tensor& t) { return t.diagonal(offset, dim1, dim2); })};
               });
  return out;
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  const int64_t n = dim();
  d = wrap_dim(d, n, "unfold");
  const int64_t len = n == 0 ? 1 : sizes()[d];
  EMBER_CHECK(size >= 0 && size <= len, "unfold", "maximum size for tensor at dimension ", d,
              " is ", len, " but size is ", size);
  EMBER_CHECK(step > 0, "unfold", "step is ", step, " but must be > 0");
  DimVector sz(sizes()), st(strides());
  if (n > 0) {
    sz[d] = (len - size) / step + 1;
    st[d] *= step;
  }
  sz.push_back(size);
  st.push_back(n == 0 ? 1 : strides()[d]);
  Recorder rec("unfold", {this});
  Tensor out = make_view(*this, sz, st, storage_offset());
  if (rec)
    rec.record("UnfoldBackward0", {out}, {},
               [in = DimVector(sizes()), d, size, step](const Grads& g, const Saved&) {
                 return TensorList{view_scatter(
                     "UnfoldBackwardBackward0", g[0], in,
                     [=](const Tensor& t) { return t.unfold(d, size, step); },
                     /*overlapping=*/size > step)};
               });
  return out;
}

namespace {

// Records a split-like op (outputs are consecutive pieces of `self` along d): the backward
// joins the pieces' gradients, zeros where a piece got none. `stacked`: the pieces dropped the
// dim (unbind), so they are stacked instead of concatenated.
void record_pieces(Recorder& rec, const char* node, const std::vector<Tensor>& pieces, int64_t d,
                   bool stacked) {
  std::vector<DimVector> shapes;
  for (const Tensor& p : pieces) shapes.emplace_back(p.sizes());
  rec.record(node, pieces, {}, [shapes, d, stacked](const Grads& g, const Saved&) {
    TensorOptions options;
    for (const Tensor& t : g)
      if (t.defined()) options = t.options();
    std::vector<Tensor> parts;
    for (size_t i = 0; i < shapes.size(); ++i)
      parts.push_back(i < g.size() && g[i].defined() ? g[i] : zeros(shapes[i], options));
    return TensorList{stacked ? stack(parts, d) : cat(parts, d)};
  });
}

}  // namespace

std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d) const {
  EMBER_CHECK(dim() > 0, "split", "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split", "split expects split_size be non-negative, but got ",
              split_size);
  d = wrap_dim(d, dim(), "split");
  const int64_t size = sizes()[d];
  EMBER_CHECK(split_size > 0 || size == 0, "split", "split_size can only be 0 if dimension size ",
              "is 0, but got dimension size of ", size);
  Recorder rec("split", {this});
  std::vector<Tensor> out;
  if (size == 0) out.push_back(narrow(d, 0, 0));
  for (int64_t start = 0; start < size; start += split_size)
    out.push_back(narrow(d, start, std::min(split_size, size - start)));
  if (rec) record_pieces(rec, "SplitBackward0", out, d, false);
  return out;
}

std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t d) const {
  return split_with_sizes(split_sizes, d);
}

std::vector<Tensor> Tensor::split_with_sizes(IntArrayRef split_sizes, int64_t d) const {
  d = wrap_dim(d, dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes", "split sizes must be non-negative, got ", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == sizes()[d], "split_with_sizes",
              "split_with_sizes expects split_sizes to sum exactly to ", sizes()[d],
              " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  Recorder rec("split_with_sizes", {this});
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(narrow(d, start, s));
    start += s;
  }
  if (rec) record_pieces(rec, "SplitWithSizesBackward0", out, d, false);
  return out;
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  EMBER_CHECK(dim() > 0, "chunk", "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk", "chunk expects `chunks` to be greater than 0, got: ", chunks);
  d = wrap_dim(d, dim(), "chunk");
  const int64_t size = sizes()[d];
  if (size == 0) {
    // PyTorch returns `chunks` empty tensors here, however many (torch.zeros(0, 3).chunk(2**39)
    // raises std::bad_alloc); ember refuses a count no program means, before building millions
    // of views (found by tests/fuzz/python_args_fuzzer: it ran the process out of memory).
    constexpr int64_t kMaxEmptyChunks = int64_t(1) << 20;
    EMBER_CHECK(chunks <= kMaxEmptyChunks, "chunk", "chunks=", chunks,
                " empty tensors of a dimension of size 0: at most ", kMaxEmptyChunks);
    Recorder rec("chunk", {this});
    std::vector<Tensor> out;
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(d, 0, 0));
    if (rec) record_pieces(rec, "SplitBackward0", out, d, false);
    return out;
  }
  // ceil(size / chunks), written so that a huge `chunks` cannot overflow.
  return split((size - 1) / chunks + 1, d);
}

std::vector<Tensor> Tensor::unbind(int64_t d) const {
  EMBER_CHECK(dim() > 0, "unbind", "dimension specified as 0 but tensor has no dimensions");
  d = wrap_dim(d, dim(), "unbind");
  Recorder rec("unbind", {this});
  std::vector<Tensor> out;
  for (int64_t i = 0; i < sizes()[d]; ++i) out.push_back(select(d, i));
  if (rec) record_pieces(rec, "UnbindBackward0", out, d, true);
  return out;
}

// Shares the data but is not a view for autograd: no history, no base.
Tensor Tensor::detach() const {
  return Tensor(make_intrusive<TensorImpl>(storage(), dtype(), sizes(), strides(), storage_offset()));
}

Tensor Tensor::alias() const {
  Recorder rec("alias", {this});
  Tensor out = make_view(*this, sizes(), strides(), storage_offset());
  if (rec)
    rec.record("AliasBackward0", {out}, {},
               [](const Grads& g, const Saved&) { return TensorList{g[0]}; });
  return out;
}

// Free-function spellings.
Tensor reshape(const Tensor& t, IntArrayRef sizes) { return t.reshape(sizes); }
Tensor flatten(const Tensor& t, int64_t s, int64_t e) { return t.flatten(s, e); }
Tensor squeeze(const Tensor& t) { return t.squeeze(); }
Tensor squeeze(const Tensor& t, int64_t d) { return t.squeeze(d); }
Tensor unsqueeze(const Tensor& t, int64_t d) { return t.unsqueeze(d); }
Tensor transpose(const Tensor& t, int64_t a, int64_t b) { return t.transpose(a, b); }
Tensor permute(const Tensor& t, IntArrayRef dims) { return t.permute(dims); }
Tensor narrow(const Tensor& t, int64_t d, int64_t s, int64_t l) { return t.narrow(d, s, l); }
Tensor select(const Tensor& t, int64_t d, int64_t i) { return t.select(d, i); }
std::vector<Tensor> split(const Tensor& t, int64_t s, int64_t d) { return t.split(s, d); }
std::vector<Tensor> chunk(const Tensor& t, int64_t c, int64_t d) { return t.chunk(c, d); }
std::vector<Tensor> unbind(const Tensor& t, int64_t d) { return t.unbind(d); }

}  // namespace ember
