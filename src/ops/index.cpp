// Python-style indexing: t.index({...}) and t.index_put_({...}, value[, accumulate]). Integers,
// slices, None and Ellipsis give views; tensors and booleans are advanced indices: index() copies
// the selected elements and index_put_ writes through them (Note [Advanced index placement]).
#include <sstream>

#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/op_prelude.h"

namespace ember {

namespace {

using Kind = TensorIndex::Kind;
using IndexList = std::vector<TensorIndex>;

// Note [Advanced index placement]
// After the basic entries are applied, each advanced index (an integer tensor, or one int64
// tensor per dim of a bool mask, from nonzero) belongs to one dim of the resulting view, and all
// of them broadcast to one shape S. If the indexed dims are adjacent, S replaces them in place:
// x[:, i, j] on (A, B, C, D) gives (A, S, D). If a slice separates them, S goes to the front:
// x[i, :, j] gives (S, B, D) (NumPy's rule, which PyTorch follows). A Python bool is an advanced
// index on a new axis (True -> [0], False -> []), and a 0-d integer tensor is a plain integer.

// Dims of the indexed tensor that an entry consumes.
int64_t consumed_dims(const TensorIndex& i) {
  switch (i.kind()) {
    case Kind::Integer:
    case Kind::Slice:
      return 1;
    case Kind::Tensor: {
      const Tensor t = i.tensor();
      return t.dtype() == kBool || t.dtype() == kUInt8 ? t.dim() : 1;
    }
    default:
      return 0;
  }
}

// The view left by the basic entries and, per dim of it, the advanced index applying there.
struct Indexed {
  Tensor view;
  std::vector<Tensor> index;  // undefined entries: no advanced index on that dim
  bool advanced() const { return !index.empty(); }
  void record(int64_t dim, const Tensor& t) {
    if (int64_t(index.size()) <= dim) index.resize(size_t(dim + 1));
    index[size_t(dim)] = t;
  }
};

Tensor bool_index(bool value) {
  return value ? zeros({1}, {.dtype = kInt64}) : empty({0}, {.dtype = kInt64});
}

Tensor select_checked(const Tensor& t, int64_t dim, int64_t real_dim, int64_t i) {
  const int64_t size = t.size(dim);
  EMBER_CHECK(i >= -size && i < size, "index", "index ", i, " is out of bounds for dimension ",
              real_dim, " with size ", size);
  return t.select(dim, i);
}

Indexed apply_basic(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex* i = begin; i != end; ++i) {
    consumed += consumed_dims(*i);
    ellipses += i->kind() == Kind::Ellipsis;
  }
  EMBER_CHECK(ellipses <= 1, "index", "an index can only have a single ellipsis ('...')");
  EMBER_CHECK(consumed <= self.dim(), "index", "too many indices for tensor of dimension ",
              self.dim(), " (got ", consumed, ")");
  Indexed r{self, {}};
  int64_t dim = 0, real_dim = 0;  // dim in the view so far; dim in self (for messages)
  for (const TensorIndex* i = begin; i != end; ++i) {
    switch (i->kind()) {
      case Kind::Integer:
        r.view = select_checked(r.view, dim, real_dim++, i->integer());
        break;
      case Kind::Slice: {
        const auto& s = i->slice();
        r.view = r.view.slice(dim++, s.start, s.stop, s.step.value_or(1));
        ++real_dim;
        break;
      }
      case Kind::None:
        r.view = r.view.unsqueeze(dim++);
        break;
      case Kind::Ellipsis:
        dim += self.dim() - consumed;
        real_dim += self.dim() - consumed;
        break;
      case Kind::Boolean:
        r.view = r.view.unsqueeze(dim);
        r.record(dim++, bool_index(i->boolean()));
        break;
      case Kind::Tensor: {
        const Tensor t = i->tensor();
        EMBER_CHECK(t.defined(), "index", "an index tensor is undefined");
        const bool is_mask = t.dtype() == kBool || t.dtype() == kUInt8;
        if (t.dim() == 0 && is_mask) {
          r.view = r.view.unsqueeze(dim);
          r.record(dim++, bool_index(t.item<bool>()));
        } else if (t.dim() == 0 && is_integral(t.dtype())) {
          r.view = select_checked(r.view, dim, real_dim++, t.item<int64_t>());
        } else {
          r.record(dim, t);
          dim += consumed_dims(*i);
          real_dim += consumed_dims(*i);
        }
        break;
      }
    }
  }
  return r;
}

// The advanced part, normalised: src is the view with its indexed dims moved together to
// [first, first + m), and offsets[j] is the element offset that the j-th (row-major) position of
// the broadcast index shape S selects within those dims.
struct Plan {
  Tensor src;
  int64_t first = 0, m = 0;
  DimVector index_shape;         // S
  std::vector<Tensor> index;     // per indexed dim: int64, expanded to S, contiguous
  DimVector result_shape;        // src.sizes()[:first] + S + src.sizes()[first + m:]
};

DimVector broadcast_indices(const std::vector<Tensor>& idx) {
  DimVector shape;
  for (const Tensor& t : idx) {
    const int64_t n = std::max<int64_t>(int64_t(shape.size()), t.dim());
    DimVector out(size_t(n), 1);
    bool ok = true;
    for (int64_t d = 0; d < n; ++d) {
      const int64_t a = d - (n - int64_t(shape.size())), b = d - (n - t.dim());
      const int64_t sa = a >= 0 ? shape[size_t(a)] : 1, sb = b >= 0 ? t.size(b) : 1;
      ok &= sa == sb || sa == 1 || sb == 1;
      out[size_t(d)] = sa == 1 ? sb : sa;
    }
    if (!ok) {
      std::string shapes;
      for (const Tensor& u : idx) {
        std::ostringstream os;
        os << u.sizes();
        shapes += (shapes.empty() ? "" : ", ") + os.str();
      }
      fail("index", "shape mismatch: indexing tensors could not be broadcast together with shapes ",
           shapes);
    }
    shape = out;
  }
  return shape;
}

Plan make_plan(const Indexed& in) {
  const Tensor& view = in.view;
  // One int64 index per indexed dim: masks become their nonzero() columns.
  std::vector<Tensor> per_dim(size_t(view.dim()));
  for (size_t d = 0; d < in.index.size(); ++d) {
    const Tensor& t = in.index[d];
    if (!t.defined()) continue;
    if (t.dtype() == kBool || t.dtype() == kUInt8) {
      for (int64_t j = 0; j < t.dim(); ++j)
        EMBER_CHECK(t.size(j) == view.size(int64_t(d) + j), "index", "The shape of the mask ",
                    t.sizes(), " at index ", j, " does not match the shape of the indexed tensor ",
                    view.sizes(), " at index ", int64_t(d) + j);
      const Tensor nz = nonzero(t);  // (n, k)
      for (int64_t j = 0; j < t.dim(); ++j) per_dim[d + size_t(j)] = nz.select(1, j);
    } else {
      EMBER_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32, "index",
                  "tensors used as indices must be long, int, byte or bool tensors (got ",
                  t.dtype(), ")");
      per_dim[d] = t.to(kInt64);
    }
  }
  std::vector<int64_t> dims;
  std::vector<Tensor> idx;
  for (size_t d = 0; d < per_dim.size(); ++d) {
    if (!per_dim[d].defined()) continue;
    dims.push_back(int64_t(d));
    idx.push_back(per_dim[d]);
  }
  Plan p;
  p.m = int64_t(dims.size());
  p.index_shape = broadcast_indices(idx);
  if (dims.back() - dims.front() + 1 == p.m) {
    p.src = view;
    p.first = dims.front();
  } else {  // separated: indexed dims first, in order (Note [Advanced index placement])
    DimVector perm;
    for (int64_t d : dims) perm.push_back(d);
    for (int64_t d = 0; d < view.dim(); ++d)
      if (!per_dim[size_t(d)].defined()) perm.push_back(d);
    p.src = view.permute(perm);
    p.first = 0;
  }
  for (int64_t d = 0; d < p.first; ++d) p.result_shape.push_back(p.src.size(d));
  for (int64_t s : p.index_shape) p.result_shape.push_back(s);
  for (int64_t d = p.first + p.m; d < p.src.dim(); ++d) p.result_shape.push_back(p.src.size(d));
  for (const Tensor& t : idx) p.index.push_back(t.expand(p.index_shape).contiguous());
  return p;
}

backend::AdvancedIndex at(const Plan& p) { return {p.src, p.first, p.index}; }

Tensor index_advanced(const Indexed& in) {
  const auto kernel =
      backend::kernel("index", in.view.device(), &backend::Backend::index,
                             &backend::IndexKernels::index);
  const Plan p = make_plan(in);
  Tensor out = empty(p.result_shape, {.dtype = p.src.dtype(), .device = p.src.device()});
  kernel(out, at(p));  // checks the indices even when out is empty
  return out;
}

void put_advanced(const Indexed& in, const Tensor& value, bool accumulate) {
  const auto kernel =
      backend::kernel("index_put_", in.view.device(), &backend::Backend::index,
                             &backend::IndexKernels::index_put);
  const Plan p = make_plan(in);
  const IntArrayRef shape = p.result_shape;
  bool fits = value.dim() <= int64_t(shape.size());
  for (int64_t d = 1; fits && d <= value.dim(); ++d)
    fits = value.size(-d) == 1 || value.size(-d) == shape[shape.size() - size_t(d)];
  EMBER_CHECK(fits, "index_put_", "shape mismatch: value tensor of shape ", value.sizes(),
              " cannot be broadcast to indexing result of shape ", shape);
  Tensor v = value.to(p.src.dtype());
  if (v.storage().get() == p.src.storage().get()) v = v.clone();  // it may alias what we write
  kernel(at(p), v.expand(shape), accumulate);
}

// True when the entries include an advanced index (a tensor other than a 0-d integer one, or a
// Python bool), which makes index() a copy rather than a view.
bool has_advanced(const TensorIndex* begin, const TensorIndex* end) {
  for (const TensorIndex* i = begin; i != end; ++i) {
    if (i->kind() == Kind::Boolean) return true;
    if (i->kind() != Kind::Tensor) continue;
    const Tensor t = i->tensor();
    if (!t.defined() || t.dim() > 0 || t.dtype() == kBool || t.dtype() == kUInt8) return true;
  }
  return false;
}

Tensor index_forward(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  Indexed in = apply_basic(self, begin, end);
  if (!in.advanced()) return in.view;
  // t[mask] with a mask over every dim is masked_select: one pass, no index tensors.
  const Tensor& m = in.index[0];
  if (in.index.size() == 1 && (m.dtype() == kBool || m.dtype() == kUInt8) &&
      m.sizes() == in.view.sizes() && m.dim() > 0)
    return masked_select(in.view, m);
  return index_advanced(in);
}

Tensor index_impl(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  if (!has_advanced(begin, end)) return apply_basic(self, begin, end).view;  // views record
  Recorder rec("index", {&self});
  Tensor out = index_forward(self, begin, end);
  if (rec)
    rec.record(
        "IndexBackward0", {out}, {},
        [list = IndexList(begin, end), in = DimVector(self.sizes())](const Grads& g, const Saved&) {
          // Gradients of repeated indices add up.
          Tensor z = zeros(in, g[0].options());
          z.index_put_(list, g[0], /*accumulate=*/true);
          return TensorList{z};
        });
  return out;
}

// Records index_put_ on self: the written positions get no gradient (unless accumulating), the
// value gets the gradient at them. Basic indices only: PyTorch's CopySlices.
void record_put(Recorder& rec, const Tensor& self, IndexList list, bool accumulate,
                const Tensor* value) {
  const char* node =
      has_advanced(list.data(), list.data() + list.size()) ? "IndexPutBackward0" : "CopySlices";
  DimVector value_sizes;
  if (value) value_sizes = DimVector(value->sizes());
  rec.record(
      node, {self}, {},
      [list, accumulate, has_value = value != nullptr, value_sizes](const Grads& g, const Saved&) {
        TensorList r;
        if (accumulate) {
          r.push_back(g[0]);
        } else {
          Tensor s = g[0].clone();
          s.index_put_(list, Scalar(0));
          r.push_back(s);
        }
        if (has_value) {
          // Down to the value's shape (its leading size-1 dims were dropped).
          DimVector squeezed(value_sizes);
          while (!squeezed.empty() && squeezed[0] == 1) squeezed.erase(0);
          Tensor v = autograd::sum_to(g[0].index(list), squeezed);
          r.push_back(v.reshape(value_sizes));
        }
        return r;
      });
}

void put_impl(const Tensor& self, const TensorIndex* begin, const TensorIndex* end,
              const Tensor& given, bool accumulate) {
  // Leading size-1 dims of the value are dropped, as Python's x[i] = v does.
  Tensor value = given;
  while (value.dim() > 0 && value.size(0) == 1) value = value.squeeze(0);
  Indexed in = apply_basic(self, begin, end);
  if (!in.advanced()) {
    if (accumulate)
      in.view.add_(value);
    else
      in.view.copy_(value);
    return;
  }
  put_advanced(in, value, accumulate);
  self.storage()->bump_version();
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index_impl(*this, indices.begin(), indices.end());
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return index_impl(*this, indices.data(), indices.data() + indices.size());
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const {
  return index_put_(IndexList(indices), value, false);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) const {
  return index_put_(IndexList(indices), value);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) const {
  return index_put_(indices, value, false);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) const {
  Recorder rec(Recorder::InPlace{}, "index_put_", *this, {});
  Indexed in = apply_basic(*this, indices.data(), indices.data() + indices.size());
  if (!in.advanced()) {
    in.view.fill_(value);
  } else {
    put_advanced(in, full({}, value, {.dtype = dtype()}), false);
    impl_->storage()->bump_version();
  }
  if (rec) record_put(rec, *this, indices, false, nullptr);
  return mut();
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                           bool accumulate) const {
  return index_put_(IndexList(indices), value, accumulate);
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value,
                           bool accumulate) const {
  Recorder rec(Recorder::InPlace{}, "index_put_", *this, {&value});
  put_impl(*this, indices.data(), indices.data() + indices.size(), value, accumulate);
  if (rec) record_put(rec, *this, indices, accumulate, &value);
  return mut();
}

}  // namespace ember

