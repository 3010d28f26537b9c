// Python-style indexing: t.index({...}) and t.index_put_({...}, value). Integers, slices, None,
// Ellipsis and booleans give views; tensor indices (advanced indexing) copy.
#include "ember/creation.h"
#include "ember/shape.h"

namespace ember {
namespace {

// Dims of the indexed tensor that an index consumes.
int64_t consumed_dims(const TensorIndex& i) {
  switch (i.kind()) {
    case TensorIndex::Kind::Integer:
    case TensorIndex::Kind::Slice: return 1;
    case TensorIndex::Kind::Tensor: {
      const Tensor t = i.tensor();
      return t.dtype() == kBool || t.dtype() == kUInt8 ? t.dim() : 1;
    }
    default: return 0;
  }
}

Tensor apply_basic(const Tensor& self, const TensorIndex* begin, const TensorIndex* end) {
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex* i = begin; i != end; ++i) {
    consumed += consumed_dims(*i);
    ellipses += i->kind() == TensorIndex::Kind::Ellipsis;
  }
  EMBER_CHECK(ellipses <= 1, "index", "an index can only have a single ellipsis ('...')");
  EMBER_CHECK(consumed <= self.dim(), "index", "too many indices for tensor of dimension ",
              self.dim(), " (got ", consumed, ")");
  Tensor result = self;
  int64_t dim = 0;
  for (const TensorIndex* i = begin; i != end; ++i) {
    switch (i->kind()) {
      case TensorIndex::Kind::Integer: result = result.select(dim, i->integer()); break;
      case TensorIndex::Kind::Slice: {
        const auto& s = i->slice();
        result = result.slice(dim, s.start, s.stop, s.step.value_or(1));
        ++dim;
        break;
      }
      case TensorIndex::Kind::None: result = result.unsqueeze(dim++); break;
      case TensorIndex::Kind::Ellipsis: dim += self.dim() - consumed; break;
      case TensorIndex::Kind::Boolean:
        // True adds an axis of size 1, False an axis of size 0 (numpy's rule).
        result = result.unsqueeze(dim);
        if (!i->boolean()) result = result.narrow(dim, 0, 0);
        ++dim;
        break;
      case TensorIndex::Kind::Tensor:
        fail("index", "indexing with a tensor (advanced indexing) is not supported yet; use "
                      "index_select or a boolean mask op");
    }
  }
  return result;
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return apply_basic(*this, indices.begin(), indices.end());
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return apply_basic(*this, indices.data(), indices.data() + indices.size());
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  apply_basic(*this, indices.begin(), indices.end()).copy_(value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) {
  apply_basic(*this, indices.begin(), indices.end()).fill_(value);
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  apply_basic(*this, indices.data(), indices.data() + indices.size()).copy_(value);
  return *this;
}

Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  apply_basic(*this, indices.data(), indices.data() + indices.size()).fill_(value);
  return *this;
}

}  // namespace ember
