// Matrix products. Primitives (one kernel call each, later each with its backward next to it):
// mm, bmm, mv, dot/vdot, addmm, addmv, baddbmm. Composites of those and views: matmul, addbmm,
// outer, linear (also nn.functional's, the same op). Checks and messages follow PyTorch's; there is
// no dtype promotion.
#include "ember/linalg.h"

#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/shape.h"
#include "ops/op_prelude.h"
#include "ops/view.h"

namespace ember {
namespace {

// `t` when `user` needs a gradient (which `t` enters), else nothing: constants save nothing.
Tensor if_needed_by(const Tensor& user, const Tensor& t) {
  return user.requires_grad() ? t : Tensor();
}

// g * s, skipping the multiplication for s == 1 (PyTorch's maybe_multiply).
Tensor scaled(const Tensor& g, const Scalar& s) {
  if (!g.defined()) return g;
  return s.to_double() == 1 ? g : g * s;
}

// PyTorch's ScalarType names, which its matmul messages use ("expected scalar type Float").
const char* scalar_type_name(Dtype t) {
  static const char* names[kNumDtypes] = {"Bool", "Byte", "Char",     "Short", "Int",
                                          "Long", "Half", "BFloat16", "Float", "Double"};
  return names[int(t)];
}

void check_same_dtype(const char* op, const Tensor& expected, const Tensor& found) {
  EMBER_CHECK(expected.dtype() == found.dtype(), op, "expected scalar type ",
              scalar_type_name(expected.dtype()), " but found ", scalar_type_name(found.dtype()));
}

// addmm's wording: "<a> and <b> must have the same dtype, but got Float and Double".
void check_same_dtype(const char* op, const Tensor& a, const char* a_name, const Tensor& b,
                      const char* b_name) {
  EMBER_CHECK(a.dtype() == b.dtype(), op, a_name, " and ", b_name,
              " must have the same dtype, but got ", scalar_type_name(a.dtype()), " and ",
              scalar_type_name(b.dtype()));
}

void check_scales(const char* op, Dtype dtype, const AddmmOptions& o) {
  if (!is_integral(dtype, true)) return;
  EMBER_CHECK(!o.beta.is_floating_point(), op,
              "For integral input tensors, argument beta must not be a floating point number.");
  EMBER_CHECK(!o.alpha.is_floating_point(), op,
              "For integral input tensors, argument alpha must not be a floating point number.");
}

// self.expand(sizes) with PyTorch's message under this op's name.
Tensor expand_self(const char* op, const Tensor& self, IntArrayRef sizes) {
  const int64_t n = self.dim(), m = int64_t(sizes.size());
  EMBER_CHECK(n <= m, op, "the number of sizes provided (", m,
              ") must be greater or equal to the number of dimensions in the tensor (", n, ")");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t have = self.size(i), want = sizes[size_t(m - n + i)];
    EMBER_CHECK(have == want || have == 1, op, "The expanded size of the tensor (", want,
                ") must match the existing size (", have, ") at non-singleton dimension ",
                m - n + i, ".  Target sizes: ", sizes, ".  Tensor sizes: ", self.sizes());
  }
  return self.expand(sizes);
}

// out = beta * self + alpha * (a @ b) for matrices (2-D) or batches (3-D); `self` is already
// expanded to out's shape, or undefined for a plain product.
Tensor product(const char* op, const Tensor& a, const Tensor& b, IntArrayRef out_sizes,
               const Tensor& self = {}, const AddmmOptions& o = {}) {
  Tensor out = empty(out_sizes, a.options());
  const bool use_self = self.defined() && o.beta.to_double() != 0;  // beta == 0 ignores self
  if (use_self) out.copy_(self);
  const Scalar beta = use_self ? o.beta : Scalar(0);
  const auto gemm = backend::kernel(op, a.device(), &backend::Backend::linalg,
                                    &backend::LinalgKernels::gemm);
  if (out.dim() == 3)
    gemm(a, b, out, o.alpha, beta);
  else
    gemm(a.unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0), o.alpha, beta);
  return out;
}

void check_mm_shapes(const char* op, int64_t m, int64_t k1, int64_t k2, int64_t n) {
  EMBER_CHECK(k1 == k2, op, "mat1 and mat2 shapes cannot be multiplied (", m, "x", k1, " and ", k2,
              "x", n, ")");
}

void check_bmm_shapes(const char* op, const Tensor& b1, const Tensor& b2) {
  EMBER_CHECK(b1.dim() == 3, op, "batch1 must be a 3D tensor");
  EMBER_CHECK(b2.dim() == 3, op, "batch2 must be a 3D tensor");
  EMBER_CHECK(b1.size(0) == b2.size(0), op,
              "batch1 and batch2 must have same number of batches, "
              "got ",
              b1.size(0), " and ", b2.size(0));
  EMBER_CHECK(b1.size(2) == b2.size(1), op, "Incompatible matrix sizes for bmm (", b1.size(1), "x",
              b1.size(2), " and ", b2.size(1), "x", b2.size(2), ")");
}

void check_mv_shapes(const char* op, int64_t self_dim, const Tensor& mat, const Tensor& vec) {
  EMBER_CHECK(mat.dim() == 2 && vec.dim() == 1 && self_dim <= 1, op,
              "vector + matrix @ vector expected, got ", self_dim, ", ", mat.dim(), ", ",
              vec.dim());
  EMBER_CHECK(mat.size(1) == vec.size(0), op, "size mismatch, got ", mat.size(0), ", ", mat.size(0),
              "x", mat.size(1), ",", vec.size(0));
}

void check_dot(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, op, "1D tensors expected, but got ", a.dim(), "D and ",
              b.dim(), "D tensors");
  EMBER_CHECK(a.dtype() == b.dtype(), op,
              "dot : expected both vectors to have same dtype, but "
              "found ",
              scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  EMBER_CHECK(a.numel() == b.numel(), op, "inconsistent tensor size, expected tensor [", a.numel(),
              "] and src [", b.numel(), "] to have the same number of elements, but got ",
              a.numel(), " and ", b.numel(), " elements respectively");
}

Tensor dot_impl(const char* op, const char* node, const Tensor& a, const Tensor& b) {
  check_dot(op, a, b);
  Recorder rec(op, {&a, &b});
  // (1, K) @ (K, 1) -> (1, 1), viewed as a 0-d tensor.
  Tensor out = product(op, a.unsqueeze(0), b.unsqueeze(1), {1, 1}).view(IntArrayRef{});
  if (rec)
    rec.record(node, {out}, {if_needed_by(b, a), if_needed_by(a, b)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{s[1].defined() ? g[0] * s[1] : Tensor(),
                                   s[0].defined() ? g[0] * s[0] : Tensor()};
               });
  return out;
}

DimVector concat(IntArrayRef a, IntArrayRef b) {
  DimVector out(a);
  for (int64_t v : b) out.push_back(v);
  return out;
}

IntArrayRef drop_last(IntArrayRef a, size_t n) { return {a.data(), a.size() - n}; }

}  // namespace

// ── primitives ─────────────────────────────────────────────────────────────────────────────

Tensor mm(const Tensor& self, const Tensor& mat2) {
  OpScope scope("mm", {&self, &mat2});
  if (scope.autocast()) return mm(scope.cast(0), scope.cast(1));
  EMBER_CHECK(self.dim() == 2, "mm", "self must be a matrix");
  EMBER_CHECK(mat2.dim() == 2, "mm", "mat2 must be a matrix");
  check_mm_shapes("mm", self.size(0), self.size(1), mat2.size(0), mat2.size(1));
  check_same_dtype("mm", self, mat2);
  Recorder rec("mm", {&self, &mat2});
  Tensor out = product("mm", self, mat2, {self.size(0), mat2.size(1)});  // (M, N)
  if (rec)
    rec.record("MmBackward0", {out}, {if_needed_by(mat2, self), if_needed_by(self, mat2)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{s[1].defined() ? g[0].mm(s[1].t()) : Tensor(),
                                   s[0].defined() ? s[0].t().mm(g[0]) : Tensor()};
               });
  return out;
}

Tensor bmm(const Tensor& self, const Tensor& mat2) {
  OpScope scope("bmm", {&self, &mat2});
  if (scope.autocast()) return bmm(scope.cast(0), scope.cast(1));
  EMBER_CHECK(self.dim() == 3, "bmm", "batch1 must be a 3D tensor");
  EMBER_CHECK(mat2.dim() == 3, "bmm", "batch2 must be a 3D tensor");
  const int64_t B = self.size(0), K = self.size(2);
  EMBER_CHECK(mat2.size(0) == B && mat2.size(1) == K, "bmm",
              "Expected size for first two dimensions of batch2 tensor to be: [", B, ", ", K,
              "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  check_same_dtype("bmm", self, mat2);
  Recorder rec("bmm", {&self, &mat2});
  Tensor out = product("bmm", self, mat2, {B, self.size(1), mat2.size(2)});  // (B, M, N)
  if (rec)
    rec.record("BmmBackward0", {out}, {if_needed_by(mat2, self), if_needed_by(self, mat2)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{s[1].defined() ? g[0].bmm(s[1].mT()) : Tensor(),
                                   s[0].defined() ? s[0].mT().bmm(g[0]) : Tensor()};
               });
  return out;
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  check_mv_shapes("mv", 1, self, vec);
  check_same_dtype("mv", self, vec);
  Recorder rec("mv", {&self, &vec});
  // (M, K) @ (K, 1) -> (M, 1), viewed as (M).
  Tensor out = product("mv", self, vec.unsqueeze(1), {self.size(0), 1}).view({self.size(0)});
  if (rec)
    rec.record("MvBackward0", {out}, {if_needed_by(vec, self), if_needed_by(self, vec)},
               [](const Grads& g, const Saved& s) {
                 return TensorList{s[1].defined() ? outer(g[0], s[1]) : Tensor(),
                                   s[0].defined() ? s[0].t().mv(g[0]) : Tensor()};
               });
  return out;
}

Tensor dot(const Tensor& self, const Tensor& other) {
  return dot_impl("dot", "DotBackward0", self, other);
}

Tensor vdot(const Tensor& self, const Tensor& other) {
  return dot_impl("vdot", "VdotBackward0", self, other);
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, AddmmOptions options) {
  OpScope scope("addmm", {&self, &mat1, &mat2});
  if (scope.autocast()) return addmm(scope.cast(0), scope.cast(1), scope.cast(2), options);
  EMBER_CHECK(mat1.dim() == 2, "addmm", "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "addmm", "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_mm_shapes("addmm", mat1.size(0), mat1.size(1), mat2.size(0), mat2.size(1));
  check_same_dtype("addmm", mat1, "mat1", mat2, "mat2");
  check_same_dtype("addmm", self, "self", mat2, "mat2");
  check_scales("addmm", self.dtype(), options);
  const DimVector sizes{mat1.size(0), mat2.size(1)};  // (M, N)
  Recorder rec("addmm", {&self, &mat1, &mat2});
  Tensor out = product("addmm", mat1, mat2, sizes, expand_self("addmm", self, sizes), options);
  if (rec)
    rec.record("AddmmBackward0", {out}, {if_needed_by(mat2, mat1), if_needed_by(mat1, mat2)},
               [o = options, need_self = self.requires_grad()](const Grads& g, const Saved& s) {
                 return TensorList{need_self ? scaled(g[0], o.beta) : Tensor(),
                                   s[1].defined() ? scaled(g[0].mm(s[1].t()), o.alpha) : Tensor(),
                                   s[0].defined() ? scaled(s[0].t().mm(g[0]), o.alpha) : Tensor()};
               });
  return out;
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, AddmmOptions options) {
  check_mv_shapes("addmv", self.dim(), mat, vec);
  check_same_dtype("addmv", self, mat);
  check_same_dtype("addmv", self, vec);
  check_scales("addmv", self.dtype(), options);
  const int64_t M = mat.size(0);
  const Tensor s = expand_self("addmv", self, {M}).unsqueeze(1);  // (M, 1)
  Recorder rec("addmv", {&self, &mat, &vec});
  Tensor out = product("addmv", mat, vec.unsqueeze(1), {M, 1}, s, options).view({M});
  if (rec)
    rec.record("AddmvBackward0", {out}, {if_needed_by(vec, mat), if_needed_by(mat, vec)},
               [o = options, need_self = self.requires_grad()](const Grads& g, const Saved& s) {
                 return TensorList{need_self ? scaled(g[0], o.beta) : Tensor(),
                                   s[1].defined() ? scaled(outer(g[0], s[1]), o.alpha) : Tensor(),
                                   s[0].defined() ? scaled(s[0].t().mv(g[0]), o.alpha) : Tensor()};
               });
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               AddmmOptions options) {
  OpScope scope("baddbmm", {&self, &batch1, &batch2});
  if (scope.autocast()) return baddbmm(scope.cast(0), scope.cast(1), scope.cast(2), options);
  check_bmm_shapes("baddbmm", batch1, batch2);
  check_same_dtype("baddbmm", self, batch1);
  check_same_dtype("baddbmm", self, batch2);
  check_scales("baddbmm", self.dtype(), options);
  const DimVector sizes{batch1.size(0), batch1.size(1), batch2.size(2)};  // (B, M, N)
  Recorder rec("baddbmm", {&self, &batch1, &batch2});
  Tensor out =
      product("baddbmm", batch1, batch2, sizes, expand_self("baddbmm", self, sizes), options);
  if (rec)
    rec.record("BaddbmmBackward0", {out},
               {if_needed_by(batch2, batch1), if_needed_by(batch1, batch2)},
               [o = options, need_self = self.requires_grad()](const Grads& g, const Saved& s) {
                 return TensorList{
                     need_self ? scaled(g[0], o.beta) : Tensor(),
                     s[1].defined() ? scaled(g[0].bmm(s[1].mT()), o.alpha) : Tensor(),
                     s[0].defined() ? scaled(s[0].mT().bmm(g[0]), o.alpha) : Tensor()};
               });
  return out;
}

// ── composites ─────────────────────────────────────────────────────────────────────────────

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              AddmmOptions options) {
  OpScope scope("addbmm", {&self, &batch1, &batch2});
  if (scope.autocast()) return addbmm(scope.cast(0), scope.cast(1), scope.cast(2), options);
  check_bmm_shapes("addbmm", batch1, batch2);
  check_same_dtype("addbmm", batch1, "batch1", batch2, "batch2");
  check_same_dtype("addbmm", self, "self", batch2, "mat2");
  check_scales("addbmm", self.dtype(), options);
  // sum_b A_b @ B_b is one product over a K of B*K: [A_0 A_1 ...] (M, B*K) @ [B_0; B_1; ...]
  // (B*K, N), so the batch sum happens inside one GEMM.
  const int64_t B = batch1.size(0), M = batch1.size(1), K = batch1.size(2), N = batch2.size(2);
  const Tensor a = batch1.permute({1, 0, 2}).reshape({M, B * K});  // (M, B*K)
  const Tensor b = batch2.reshape({B * K, N});                     // (B*K, N)
  const DimVector sizes{M, N};
  Recorder rec("addbmm", {&self, &batch1, &batch2});
  Tensor out = product("addbmm", a, b, sizes, expand_self("addbmm", self, sizes), options);
  if (rec)
    rec.record("AddbmmBackward0", {out},
               {if_needed_by(batch2, batch1), if_needed_by(batch1, batch2)},
               [o = options, need_self = self.requires_grad(), B, M, N](const Grads& g,
                                                                       const Saved& s) {
                 const Tensor gb = g[0].unsqueeze(0).expand({B, M, N});
                 return TensorList{
                     need_self ? scaled(g[0], o.beta) : Tensor(),
                     s[1].defined() ? scaled(gb.bmm(s[1].mT()), o.alpha) : Tensor(),
                     s[0].defined() ? scaled(s[0].mT().bmm(gb), o.alpha) : Tensor()};
               });
  return out;
}

Tensor matmul(const Tensor& self, const Tensor& other) {
  OpScope scope("matmul", {&self, &other});
  if (scope.autocast()) return matmul(scope.cast(0), scope.cast(1));
  const int64_t da = self.dim(), db = other.dim();
  EMBER_CHECK(da > 0 && db > 0, "matmul",
              "both arguments to matmul need to be at least 1D, but "
              "they are ",
              da, "D and ", db, "D");
  if (da == 1 && db == 1) return dot(self, other);
  if (da == 2 && db == 1) return mv(self, other);
  if (da == 1 && db == 2) return squeeze_inplace_named(mm(self.unsqueeze(0), other), 0);
  if (da == 2 && db == 2) return mm(self, other);
  const int64_t K = self.size(-1);
  if (da >= 3 && db <= 2) {
    // (..., M, K) @ (K, N): fold the batch into M and run one big product when that is a view.
    const IntArrayRef lead = drop_last(self.sizes(), 1);
    const int64_t rows = prod(lead);
    if (db == 2)
      check_mm_shapes("matmul", rows, K, other.size(0), other.size(1));
    else
      EMBER_CHECK(K == other.size(0), "matmul", "size mismatch, got ", rows, ", ", rows, "x", K,
                  ",", other.size(0));
    if (auto strides = view_strides(self.sizes(), self.strides(), {rows, K})) {
      const Tensor a = self.view({rows, K});  // (B*M, K)
      if (db == 1) return mv(a, other).view(lead);
      return mm(a, other).view(concat(lead, {other.size(1)}));
    }
  }
  // Batched: a 1-D operand becomes a matrix, batch dims broadcast, and the batch is flattened to
  // one dim (a view for contiguous or broadcast batches, a copy otherwise).
  const Tensor a = da == 1 ? self.unsqueeze(0) : self;    // (..., M, K)
  const Tensor b = db == 1 ? other.unsqueeze(1) : other;  // (..., K, N)
  const int64_t M = a.size(-2), N = b.size(-1);
  const DimVector batch = broadcast_shapes(drop_last(a.sizes(), 2), drop_last(b.sizes(), 2));
  const int64_t B = prod(batch);
  EMBER_CHECK(b.size(-2) == K, "matmul",
              "Expected size for first two dimensions of batch2 tensor "
              "to be: [",
              B, ", ", K, "] but got: [", B, ", ", b.size(-2), "].");
  check_same_dtype("matmul", a, b);
  const Tensor a3 = a.expand(concat(batch, {M, K})).reshape({B, M, K});
  const Tensor b3 = b.expand(concat(batch, {K, N})).reshape({B, K, N});
  Tensor out = bmm(a3, b3).view(concat(batch, {M, N}));  // (..., M, N)
  if (da == 1) out = out.squeeze(-2);
  if (db == 1) out = out.squeeze(-1);
  return out;
}

Tensor outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK(self.dim() == 1, "outer", "outer: Expected 1-D argument self, but got ", self.dim(),
              "-D");
  EMBER_CHECK(vec2.dim() == 1, "outer", "outer: Expected 1-D argument vec2, but got ", vec2.dim(),
              "-D");
  return mul(self.unsqueeze(1), vec2);  // (n, 1) * (m) -> (n, m)
}

Tensor ger(const Tensor& self, const Tensor& vec2) { return outer(self, vec2); }

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  OpScope scope("linear", {&input, &weight, &bias});
  if (scope.autocast()) return linear(scope.cast(0), scope.cast(1), scope.cast(2));
  if (input.dim() >= 2 && weight.dim() == 2) {
    // The hot path of nn.Linear: x (*, in) folded to (rows, in), one GEMM against weight^T (read
    // transposed, not copied) into an output that already holds the bias (beta = 1). PyTorch
    // 1.13 runs addmm(bias, x, weight.t()) (mm without a bias) and views the result back; the
    // node here is that addmm's, connected straight to input and weight (no fold or transpose
    // nodes), and the final view records a ViewBackward0 above it for inputs of more dims.
    const int64_t in = input.size(-1), out_features = weight.size(0);
    const IntArrayRef lead = drop_last(input.sizes(), 1);
    const int64_t rows = prod(lead);
    check_mm_shapes("linear", rows, in, weight.size(1), out_features);
    check_same_dtype("linear", input, weight);
    const DimVector sizes{rows, out_features};  // (rows, out)
    Tensor out;
    {
      Recorder rec("linear", {&input, &weight, &bias});
      const Tensor x = input.reshape({rows, in});  // (rows, in)
      if (bias.defined()) {
        check_same_dtype("linear", bias, "self", weight, "mat2");
        out = product("linear", x, weight.t(), sizes, expand_self("linear", bias, sizes));
      } else {
        out = product("linear", x, weight.t(), sizes);
      }
      if (rec)
        rec.record(bias.defined() ? "AddmmBackward0" : "MmBackward0", {out},
                   {if_needed_by(weight, input), if_needed_by(input, weight)},
                   [need_bias = bias.defined() && bias.requires_grad(), rows, in,
                    in_sizes = DimVector(input.sizes())](const Grads& g, const Saved& s) {
                     Tensor gx, gw;
                     if (s[1].defined()) {
                       gx = g[0].mm(s[1]);  // (rows, in)
                       if (in_sizes.size() != 2) gx = gx.view(in_sizes);
                     }
                     if (s[0].defined()) {
                       const Tensor x = s[0].dim() == 2 ? s[0] : s[0].reshape({rows, in});
                       gw = g[0].t().mm(x);  // (out, in)
                     }
                     return TensorList{gx, gw, need_bias ? g[0] : Tensor()};
                   });
    }
    return input.dim() == 2 ? out : out.view(concat(lead, {out_features}));
  }
  const Tensor out = matmul(input, weight.t());
  return bias.defined() ? add(out, bias) : out;
}

namespace nn::functional {
// F::linear is ember::linear under torch.nn.functional's name, kept beside it.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return ember::linear(input, weight, bias);
}
}  // namespace nn::functional

// ── Tensor methods ─────────────────────────────────────────────────────────────────────────

Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return ember::bmm(*this, other); }
Tensor Tensor::mv(const Tensor& vec) const { return ember::mv(*this, vec); }
Tensor Tensor::dot(const Tensor& other) const { return ember::dot(*this, other); }

}  // namespace ember
