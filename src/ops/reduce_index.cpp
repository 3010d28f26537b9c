// Reductions that also return positions: max/min along a dim -> (values, indices), argmax,
// argmin; and var/std (+ var_mean/std_mean) and logsumexp, which need two passes.
// PyTorch's rules: the first occurrence wins ties; NaN counts as the maximum (and minimum).
#include <cmath>
#include <limits>

#include "backend/cpu/parallel.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ops/reduce.h"

namespace ember {
namespace {

// Moves `dim` last and makes the result contiguous: (M, D) rows, one per output.
Tensor rows_along(const Tensor& self, int64_t dim) {
  return self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(dim, -1).contiguous();
}

template <bool Max>
std::tuple<Tensor, Tensor> arg_reduce(const Tensor& self, int64_t dim, bool keepdim,
                                      const char* op) {
  dim = wrap_dim(dim, self.dim(), op);
  const int64_t D = self.dim() == 0 ? 1 : self.sizes()[dim];
  EMBER_CHECK(D > 0, op, "Expected reduction dim ", dim, " to have non-zero size.");
  const Tensor rows = rows_along(self, dim);
  const int64_t M = rows.numel() / D;
  const DimVector shape = reduced_shape(self.sizes(), DimVector{dim}, false);
  Tensor values = empty(shape, {.dtype = self.dtype()});
  Tensor indices = empty(shape, {.dtype = kInt64});
  dispatch(self.dtype(), op, [&]<class T>() {
    const T* x = rows.data_ptr<T>();
    T* v = values.data_ptr<T>();
    int64_t* idx = indices.data_ptr<int64_t>();
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / D), [&](int64_t m0, int64_t m1) {
      for (int64_t m = m0; m < m1; ++m) {
        const T* row = x + m * D;
        int64_t best = 0;
        auto bv = convert<compute_t<T>>(row[0]);
        for (int64_t i = 1; i < D && bv == bv; ++i) {
          const auto c = convert<compute_t<T>>(row[i]);
          if (c != c || (Max ? c > bv : c < bv)) {  // a NaN wins and ends the scan
            bv = c;
            best = i;
          }
        }
        v[m] = row[best];
        idx[m] = best;
      }
    });
  });
  if (keepdim && self.dim() > 0) {
    const DimVector kshape = reduced_shape(self.sizes(), DimVector{dim}, true);
    return {values.view(kshape), indices.view(kshape)};
  }
  return {values, indices};
}

// var over dims with a correction (Bessel's by default): two passes (mean, then squared
// deviations), accumulated in double for float/half inputs.
Tensor var_impl(const Tensor& self, std::optional<IntArrayRef> dims_opt, int64_t correction,
                bool keepdim, const char* op) {
  EMBER_CHECK(self.is_floating_point(), op, "std and var only support floating point inputs, ",
              "got ", self.dtype());
  const IntArrayRef dims = dims_opt.value_or(IntArrayRef());
  const DimVector d = reduction_dims(dims, self.dim(), op);
  int64_t n = 1;
  for (int64_t i : d) n *= self.sizes()[i];
  const Tensor x = self.dtype() == kFloat64 ? self : self.to(kFloat64);
  const Tensor mean = x.mean(d, /*keepdim=*/true);
  const Tensor centered = x - mean;
  const Tensor ss = (centered * centered).sum(d, keepdim);
  // PyTorch divides by max(0, n - correction): n <= correction gives inf/nan, not an error.
  const double denom = double(std::max<int64_t>(0, n - correction));
  return (ss / denom).to(self.dtype());
}

int64_t dim_or_zero(const Tensor& t) { return t.dim(); }

}  // namespace

std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return arg_reduce<true>(*this, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return arg_reduce<false>(*this, dim, keepdim, "min");
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) {
    EMBER_CHECK(numel() > 0, "argmax", "Expected reduction dim to be specified for "
                "input.numel() == 0.");
    Tensor idx = std::get<1>(arg_reduce<true>(reshape({-1}), 0, false, "argmax"));
    return keepdim ? idx.view(DimVector(size_t(dim_or_zero(*this)), 1)) : idx;
  }
  return std::get<1>(arg_reduce<true>(*this, *dim, keepdim, "argmax"));
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  if (!dim) {
    EMBER_CHECK(numel() > 0, "argmin", "Expected reduction dim to be specified for "
                "input.numel() == 0.");
    Tensor idx = std::get<1>(arg_reduce<false>(reshape({-1}), 0, false, "argmin"));
    return keepdim ? idx.view(DimVector(size_t(dim_or_zero(*this)), 1)) : idx;
  }
  return std::get<1>(arg_reduce<false>(*this, *dim, keepdim, "argmin"));
}

Tensor Tensor::var(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return var_impl(*this, dims, correction, keepdim, "var");
}
Tensor Tensor::var(int64_t dim, int64_t correction, bool keepdim) const {
  return var_impl(*this, IntArrayRef({dim}), correction, keepdim, "var");
}
Tensor Tensor::std(std::optional<IntArrayRef> dims, int64_t correction, bool keepdim) const {
  return ember::sqrt(var_impl(*this, dims, correction, keepdim, "std"));
}
Tensor Tensor::std(int64_t dim, int64_t correction, bool keepdim) const {
  return ember::sqrt(var_impl(*this, IntArrayRef({dim}), correction, keepdim, "std"));
}

Tensor Tensor::logsumexp(IntArrayRef dims, bool keepdim) const {
  const Tensor x = is_floating_point() ? *this : to(default_dtype());
  const DimVector d = reduction_dims(dims, x.dim(), "logsumexp");
  if (x.numel() == 0) return ember::log(x.exp().sum(d, keepdim));
  // Shift by the max so exp never overflows; an infinite max is left unshifted (as PyTorch).
  Tensor m = x.amax(d, /*keepdim=*/true);
  m = ember::where(m.isinf(), zeros_like(m), m);
  Tensor out = ember::log((x - m).exp().sum(d, /*keepdim=*/true)) + m;
  return keepdim ? out : out.squeeze(d);
}
Tensor Tensor::logsumexp(int64_t dim, bool keepdim) const {
  return logsumexp(IntArrayRef({dim}), keepdim);
}

}  // namespace ember
