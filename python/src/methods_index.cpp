// Index-based ops (gather, scatter, index_select, masked_select, nonzero, searchsorted, unique,
// ...) and linear algebra (matmul, mm, bmm, einsum, ...) from Python.
#include "common.h"

namespace ember::python {
namespace {

Tensor scatter_any(const Tensor& t, int64_t dim, const Tensor& index, py::handle src,
                   py::handle value, py::handle reduce, bool in_place) {
  if (!reduce.is_none()) {
    std::string r = reduce.cast<std::string>();
    // scatter(reduce="add"/"multiply") is scatter_reduce's "sum"/"prod", including self.
    std::string how = r == "add" ? "sum" : r == "multiply" ? "prod" : r;
    Tensor s = is_tensor(src)
                   ? unwrap(src)
                   : full_like(index, to_scalar(src.is_none() ? value : src, "scatter", "value"),
                               {.dtype = t.dtype()});
    Tensor out = scatter_reduce(t, dim, index, s, how, true);
    return in_place ? t.copy_(out) : out;
  }
  py::handle v = src.is_none() ? value : src;
  if (v.is_none()) throw py::type_error("scatter() missing required argument 'src' or 'value'");
  if (is_tensor(v))
    return in_place ? t.scatter_(dim, index, unwrap(v)) : t.scatter(dim, index, unwrap(v));
  Scalar s = to_scalar(v, "scatter", "value");
  return in_place ? t.scatter_(dim, index, s) : t.scatter(dim, index, s);
}

}  // namespace

void bind_index_methods(Binder& b) {
  b.both(
      "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index) { return t.index_select(dim, index); },
      py::arg("dim"), py::arg("index"));
  b.both(
      "gather",
      [](const Tensor& t, int64_t dim, const Tensor& index, bool) { return t.gather(dim, index); },
      py::arg("dim"), py::arg("index"), py::kw_only(), py::arg("sparse_grad") = false);
  b.both(
      "take_along_dim",
      [](const Tensor& t, const Tensor& idx, std::optional<int64_t> dim) {
        return ember::take_along_dim(t, idx, dim);
      },
      py::arg("indices"), py::arg("dim") = py::none());
  b.both(
      "take", [](const Tensor& t, const Tensor& idx) { return ember::take(t, idx); },
      py::arg("index"));
  for (bool in_place : {false, true})
    b.method(
        in_place ? "scatter_" : "scatter",
        [in_place](const Tensor& t, int64_t dim, const Tensor& index, py::handle src,
                   py::handle value, py::handle reduce) {
          return scatter_any(t, dim, index, src, value, reduce, in_place);
        },
        py::arg("dim"), py::arg("index"), py::arg("src") = py::none(), py::kw_only(),
        py::arg("value") = py::none(), py::arg("reduce") = py::none());
  b.function(
      "scatter",
      [](const Tensor& t, int64_t dim, const Tensor& index, py::handle src, py::handle value,
         py::handle reduce) { return scatter_any(t, dim, index, src, value, reduce, false); },
      py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src") = py::none(),
      py::kw_only(), py::arg("value") = py::none(), py::arg("reduce") = py::none());
  b.both(
      "scatter_add",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return t.scatter_add(dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  b.method(
      "scatter_add_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return t.scatter_add_(dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"));
  b.both(
      "scatter_reduce",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce, bool include_self) {
        return ember::scatter_reduce(t, dim, index, src, reduce, include_self);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  b.method(
      "scatter_reduce_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
         const std::string& reduce, bool include_self) {
        Tensor self = t;
        return ember::scatter_reduce_(self, dim, index, src, reduce, include_self);
      },
      py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
      py::arg("include_self") = true);
  b.both(
      "index_add",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, py::handle alpha) {
        return ember::index_add(t, dim, index, src, to_scalar(alpha, "index_add", "alpha"));
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  b.method(
      "index_add_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, py::handle alpha) {
        return t.index_add_(dim, index, src, to_scalar(alpha, "index_add_", "alpha"));
      },
      py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1);
  b.both(
      "index_copy",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return ember::index_copy(t, dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"));
  b.method(
      "index_copy_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return t.index_copy_(dim, index, src);
      },
      py::arg("dim"), py::arg("index"), py::arg("source"));
  b.both(
      "index_fill",
      [](const Tensor& t, int64_t dim, const Tensor& index, py::handle v) {
        return ember::index_fill(t, dim, index, to_scalar(v, "index_fill", "value"));
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));
  b.method(
      "index_fill_",
      [](const Tensor& t, int64_t dim, const Tensor& index, py::handle v) {
        return t.index_fill_(dim, index, to_scalar(v, "index_fill_", "value"));
      },
      py::arg("dim"), py::arg("index"), py::arg("value"));
  b.both("fliplr", [](const Tensor& t) { return ember::fliplr(t); });
  b.both("flipud", [](const Tensor& t) { return ember::flipud(t); });
  b.method(
      "masked_scatter_",
      [](const Tensor& t, const Tensor& m, const Tensor& s) {
        Tensor self = t;
        return ember::masked_scatter_(self, m, s);
      },
      py::arg("mask"), py::arg("source"));
  b.both(
      "masked_select", [](const Tensor& t, const Tensor& m) { return t.masked_select(m); },
      py::arg("mask"));
  b.both(
      "masked_scatter",
      [](const Tensor& t, const Tensor& m, const Tensor& s) {
        return ember::masked_scatter(t, m, s);
      },
      py::arg("mask"), py::arg("source"));
  b.both(
      "nonzero",
      [](const Tensor& t, bool as_tuple) -> py::object {
        if (as_tuple) return py::tuple(py::cast(nonzero_tuple(t)));
        return wrap(t.nonzero());
      },
      py::kw_only(), py::arg("as_tuple") = false);
  b.both("argwhere", [](const Tensor& t) { return ember::argwhere(t); });
  b.both(
      "repeat_interleave",
      [](const Tensor& t, py::handle repeats, py::handle dim) {
        std::optional<int64_t> d;
        if (!dim.is_none()) d = to_int(dim, "repeat_interleave", "dim");
        if (repeats.is_none()) return ember::repeat_interleave(t);
        if (is_tensor(repeats)) return ember::repeat_interleave(t, unwrap(repeats), d);
        return ember::repeat_interleave(t, to_int(repeats, "repeat_interleave", "repeats"), d);
      },
      py::arg("repeats") = py::none(), py::arg("dim") = py::none());
  b.function(
      "meshgrid",
      [](py::args ts, std::string indexing) {
        py::handle list = ts.size() == 1 && !is_tensor(ts[0]) ? ts[0] : py::handle(ts);
        return py::tuple(
            py::cast(ember::meshgrid(to_tensor_list(list, "meshgrid", "tensors"), indexing)));
      },
      py::kw_only(), py::arg("indexing") = "ij");
  b.function(
      "searchsorted",
      [](const Tensor& seq, py::handle values, bool out_int32, bool right,
         std::optional<std::string> side, std::optional<Tensor> sorter) {
        SearchsortedOptions o{.out_int32 = out_int32,
                              .right = right,
                              .side = side,
                              .sorter = sorter.value_or(Tensor())};
        if (is_tensor(values)) return ember::searchsorted(seq, unwrap(values), o);
        return ember::searchsorted(seq, to_scalar(values, "searchsorted", "values"), o);
      },
      py::arg("sorted_sequence"), py::arg("values"), py::kw_only(), py::arg("out_int32") = false,
      py::arg("right") = false, py::arg("side") = py::none(), py::arg("sorter") = py::none());
  b.function(
      "bucketize",
      [](const Tensor& t, const Tensor& boundaries, bool out_int32, bool right) {
        return ember::bucketize(t, boundaries, out_int32, right);
      },
      py::arg("input"), py::arg("boundaries"), py::kw_only(), py::arg("out_int32") = false,
      py::arg("right") = false);
  b.both(
      "unique",
      [](const Tensor& t, bool sorted, bool return_inverse, bool return_counts,
         std::optional<int64_t> dim) -> py::object {
        UniqueResult r = ember::unique(t, {.sorted = sorted,
                                           .return_inverse = return_inverse,
                                           .return_counts = return_counts,
                                           .dim = dim});
        if (!return_inverse && !return_counts) return wrap(r.output);
        py::list out;
        out.append(wrap(r.output));
        if (return_inverse) out.append(wrap(r.inverse_indices));
        if (return_counts) out.append(wrap(r.counts));
        return py::tuple(out);
      },
      py::arg("sorted") = true, py::arg("return_inverse") = false, py::arg("return_counts") = false,
      py::arg("dim") = py::none());

  // ── linear algebra ──
  auto big = [](const Tensor& a, const Tensor& b) {
    return work_product(a.numel(), b.dim() ? b.size(-1) : 1);
  };
  b.both(
      "matmul",
      [big](const Tensor& a, const Tensor& o) {
        LongOpGilRelease gil(big(a, o));
        return a.matmul(o);
      },
      py::arg("other"));
  b.both(
      "mm",
      [big](const Tensor& a, const Tensor& o) {
        LongOpGilRelease gil(big(a, o));
        return a.mm(o);
      },
      py::arg("mat2"));
  b.both(
      "bmm",
      [big](const Tensor& a, const Tensor& o) {
        LongOpGilRelease gil(big(a, o));
        return a.bmm(o);
      },
      py::arg("mat2"));
  b.both(
      "mv", [](const Tensor& a, const Tensor& v) { return a.mv(v); }, py::arg("vec"));
  b.both(
      "dot", [](const Tensor& a, const Tensor& o) { return a.dot(o); }, py::arg("other"));
  b.both(
      "vdot", [](const Tensor& a, const Tensor& o) { return ember::vdot(a, o); }, py::arg("other"));
  b.both(
      "inner",
      [](const Tensor& a, const Tensor& o) {
        return a.dim() == 0 || o.dim() == 0
                   ? a * o
                   : ember::matmul(a, o.dim() == 1 ? o : o.transpose(-1, -2));
      },
      py::arg("other"));
  b.both(
      "outer", [](const Tensor& a, const Tensor& o) { return ember::outer(a, o); },
      py::arg("vec2"));
  b.alias("ger", "outer");
  for (const char* name : {"addmm", "addmv", "addbmm", "baddbmm"}) {
    std::string n = name;
    b.both(
        name,
        [n](const Tensor& s, const Tensor& m1, const Tensor& m2, py::handle beta,
            py::handle alpha) {
          AddmmOptions o{.beta = to_scalar(beta, "addmm", "beta"),
                         .alpha = to_scalar(alpha, "addmm", "alpha")};
          LongOpGilRelease gil(work_product(m1.numel(), m2.dim() ? m2.size(-1) : 1));
          if (n == "addmm") return ember::addmm(s, m1, m2, o);
          if (n == "addmv") return ember::addmv(s, m1, m2, o);
          if (n == "addbmm") return ember::addbmm(s, m1, m2, o);
          return ember::baddbmm(s, m1, m2, o);
        },
        py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1, py::arg("alpha") = 1);
  }
  b.function(
      "einsum",
      [](const std::string& eq, py::args operands) {
        py::handle list =
            operands.size() == 1 && !is_tensor(operands[0]) ? operands[0] : py::handle(operands);
        std::vector<Tensor> ts = to_tensor_list(list, "einsum", "operands");
        int64_t work = 0;
        for (const Tensor& t : ts) work += t.numel();
        LongOpGilRelease gil(work);
        return ember::einsum(eq, ts);
      },
      py::arg("equation"));
}

}  // namespace ember::python
