// Joining and tiling: cat, stack, hstack, vstack, repeat; broadcasting of shapes and tensors.
#include <algorithm>

#include "ember/creation.h"
#include "ember/shape.h"
#include "ops/copy.h"
#include "ops/op_prelude.h"

namespace ember {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; a missing dim counts as 1.
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, "broadcast", "the size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_shapes(shape, t.sizes());
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

Tensor broadcast_to(const Tensor& t, IntArrayRef sizes) { return t.expand(sizes); }

namespace {
// The list autocast cast (Note [Autocast] in core/op_entry.h), for the redispatch.
std::vector<Tensor> autocast_inputs(const OpScope& scope, size_t n) {
  std::vector<Tensor> cast;
  cast.reserve(n);
  for (size_t i = 0; i < n; ++i) cast.push_back(scope.cast(i));
  return cast;
}
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "cat", "expected a non-empty list of Tensors");
  OpScope scope("cat", tensors);
  if (scope.autocast()) return cat(autocast_inputs(scope, tensors.size()), dim);
  Recorder rec("cat", tensors);
  // Legacy rule kept by PyTorch: 1-D empty tensors are skipped whatever their shape.
  std::vector<const Tensor*> parts;
  for (const Tensor& t : tensors)
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(&t);
  Dtype dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) dtype = promote_types(dtype, t.dtype());
  if (parts.empty()) return empty({0}, {.dtype = dtype, .device = tensors[0].device()});
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].dim() > 0, "cat", "zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
  const Tensor& ref = *parts[0];
  dim = wrap_dim(dim, ref.dim(), "cat");
  DimVector shape(ref.sizes());
  shape[dim] = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& t = *parts[i];
    EMBER_CHECK(t.dim() == ref.dim(), "cat", "tensors must have same number of dimensions: got ",
                ref.dim(), " and ", t.dim());
    EMBER_CHECK(t.device() == ref.device(), "cat", "expected all tensors to be on the same ",
                "device, but found ", ref.device(), " and ", t.device());
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(d == dim || t.sizes()[d] == ref.sizes()[d], "cat", "sizes of tensors must ",
                  "match except in dimension ", dim, ". Expected size ", ref.sizes()[d],
                  " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    shape[dim] += t.sizes()[dim];
  }
  Tensor out = empty(shape, {.dtype = dtype, .device = ref.device()});
  int64_t offset = 0;
  for (const Tensor* t : parts) {
    const int64_t n = t->sizes()[dim];
    copy_into(out.narrow(dim, offset, n), *t);  // a new tensor: version 0
    offset += n;
  }
  if (rec) {
    // Each input's (start, length) along dim; skipped empty inputs get no gradient.
    std::vector<std::pair<int64_t, int64_t>> ranges;
    int64_t start = 0;
    for (const Tensor& t : tensors) {
      const bool skipped = t.dim() == 1 && t.numel() == 0;
      const int64_t n = skipped ? -1 : t.sizes()[dim];
      ranges.emplace_back(start, n);
      if (!skipped) start += n;
    }
    rec.record("CatBackward0", {out}, {}, [ranges, dim](const Grads& g, const Saved&) {
      TensorList r;
      for (const auto& [b, n] : ranges) r.push_back(n < 0 ? Tensor() : g[0].narrow(dim, b, n));
      return r;
    });
  }
  return out;
}

Tensor concat(const std::vector<Tensor>& tensors, int64_t dim) { return cat(tensors, dim); }

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack", "expects a non-empty TensorList");
  OpScope scope("stack", tensors);
  if (scope.autocast()) return stack(autocast_inputs(scope, tensors.size()), dim);
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack",
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  dim = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  Recorder rec("stack", tensors);
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(dim));
  Tensor out = cat(parts, dim);
  if (rec)
    rec.record("StackBackward0", {out}, {},
               [dim, n = tensors.size()](const Grads& g, const Saved&) {
                 TensorList r;
                 for (size_t i = 0; i < n; ++i) r.push_back(g[0].select(dim, int64_t(i)));
                 return r;
               });
  return out;
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack", "expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() == 0 ? t.reshape({1}) : t);
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack", "expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors)
    parts.push_back(t.dim() == 0 ? t.reshape({1, 1}) : t.dim() == 1 ? t.unsqueeze(0) : t);
  return cat(parts, 0);
}

Tensor Tensor::repeat(IntArrayRef repeats) const {
  const int64_t n = dim(), m = int64_t(repeats.size());
  EMBER_CHECK(m >= n, "repeat", "number of dimensions of repeat dims can not be smaller than ",
              "number of dimensions of tensor");
  // Tile by viewing the (padded) input as [1, s0, 1, s1, ...], expanding the 1s to the repeat
  // counts and materialising: [r0, s0, r1, s1, ...] -> [r0*s0, r1*s1, ...].
  DimVector interleaved, expanded, result;
  for (int64_t i = 0; i < m; ++i) {
    EMBER_CHECK(repeats[i] >= 0, "repeat", "trying to create tensor with negative dimension ",
                repeats[i], ": ", repeats);
    const int64_t s = i < m - n ? 1 : sizes()[i - (m - n)];
    interleaved.push_back(1);
    interleaved.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    result.push_back(repeats[i] * s);
  }
  Recorder rec("repeat", {this});
  Tensor out = reshape(interleaved).expand(expanded).contiguous().view(result);
  if (rec)
    rec.record("RepeatBackward0", {out}, {},
               [expanded, in = DimVector(sizes()), m](const Grads& g, const Saved&) {
                 DimVector tiles;
                 for (int64_t i = 0; i < m; ++i) tiles.push_back(2 * i);
                 Tensor r = g[0].reshape(expanded);
                 if (m > 0) r = r.sum(IntArrayRef(tiles));
                 return TensorList{r.reshape(in)};
               });
  return out;
}

}  // namespace ember
