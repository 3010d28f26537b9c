// Reductions, scans, sorting and norms from Python, with PyTorch's keywords (dim=, keepdim=,
// dtype=, unbiased=/correction=) and its (values, indices) named pairs.
#include "common.h"

namespace ember::python {

py::object return_pair(const char* name, const std::tuple<Tensor, Tensor>& values) {
  // Leaked on purpose: a static py::object would be released after the interpreter is gone.
  static PyObject* types = py::module_::import("ember.return_types").release().ptr();
  return py::handle(types).attr(name)(wrap(std::get<0>(values)), wrap(std::get<1>(values)));
}

namespace {

using Dims = std::optional<std::vector<int64_t>>;

int64_t one_dim(py::handle h, const char* op) { return to_int(h, op, "dim"); }

// std/var: PyTorch 1.13 reads (dim=None, unbiased=True, keepdim=False, *, correction=None); a
// bool in the first place is `unbiased` (t.std(False)).
Tensor std_var(bool is_std, const Tensor& t, py::handle dim, py::handle unbiased, bool keepdim,
               py::handle correction) {
  const char* op = is_std ? "std" : "var";
  if (PyBool_Check(dim.ptr())) {
    unbiased = dim;
    dim = py::none();
  }
  int64_t c = 1;
  if (!correction.is_none())
    c = to_int(correction, op, "correction");
  else if (!unbiased.is_none())
    c = unbiased.cast<bool>() ? 1 : 0;
  Dims d = to_dims(dim, op);
  std::optional<IntArrayRef> dims;
  if (d) dims = IntArrayRef(*d);
  LongOpGilRelease gil(t.numel());
  return is_std ? t.std(dims, c, keepdim) : t.var(dims, c, keepdim);
}

// max/min: () -> global, (dim, keepdim) -> (values, indices), (Tensor) -> elementwise.
py::object extremum(bool is_max, const Tensor& t, py::handle dim, bool keepdim) {
  const char* op = is_max ? "max" : "min";
  if (dim.is_none()) return wrap(is_max ? t.max() : t.min());
  if (is_tensor(dim)) {
    Tensor o = unwrap(dim);
    return wrap(is_max ? ember::maximum(t, o) : ember::minimum(t, o));
  }
  int64_t d = one_dim(dim, op);
  return return_pair(op, is_max ? t.max(d, keepdim) : t.min(d, keepdim));
}

}  // namespace

void bind_reduce_methods(Binder& b) {
  for (bool mean : {false, true}) {
    b.both(
        mean ? "mean" : "sum",
        [mean](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
          const char* op = mean ? "mean" : "sum";
          std::optional<Dtype> dt = to_optional_dtype(dtype, op);
          Dims d = to_dims(dim, op);
          LongOpGilRelease gil(t.numel());
          if (!d) return mean ? t.mean(dt) : t.sum(dt);
          return mean ? t.mean(*d, keepdim, dt) : t.sum(*d, keepdim, dt);
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
        py::arg("dtype") = py::none());
  }
  b.both(
      "nansum",
      [](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
        std::optional<Dtype> dt = to_optional_dtype(dtype, "nansum");
        if (dim.is_none()) return t.nansum(dt);
        return t.nansum(*to_dims(dim, "nansum"), keepdim, dt);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  b.both(
      "nanmean",
      [](const Tensor& t, py::handle dim, bool keepdim) {
        Dims d = to_dims(dim, "nanmean");
        return d ? t.nanmean(IntArrayRef(*d), keepdim) : t.nanmean({}, keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  b.both(
      "prod",
      [](const Tensor& t, py::handle dim, bool keepdim, py::handle dtype) {
        std::optional<Dtype> dt = to_optional_dtype(dtype, "prod");
        if (dim.is_none()) return t.prod(dt);
        return t.prod(one_dim(dim, "prod"), keepdim, dt);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(),
      py::arg("dtype") = py::none());
  for (bool is_std : {true, false}) {
    b.both(
        is_std ? "std" : "var",
        [is_std](const Tensor& t, py::handle dim, py::handle unbiased, bool keepdim,
                 py::handle correction) {
          return std_var(is_std, t, dim, unbiased, keepdim, correction);
        },
        py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
        py::kw_only(), py::arg("correction") = py::none());
    b.function(
        is_std ? "std_mean" : "var_mean",
        [is_std](const Tensor& t, py::handle dim, py::handle unbiased, bool keepdim,
                 py::handle correction) {
          int64_t c = correction.is_none() ? (unbiased.is_none() || unbiased.cast<bool>() ? 1 : 0)
                                           : to_int(correction, "std_mean", "correction");
          Dims d = to_dims(dim, "std_mean");
          std::optional<IntArrayRef> dims;
          if (d) dims = IntArrayRef(*d);
          return is_std ? std_mean(t, dims, c, keepdim) : var_mean(t, dims, c, keepdim);
        },
        py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
        py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none());
  }
  for (bool is_max : {true, false}) {
    b.both(
        is_max ? "max" : "min",
        [is_max](const Tensor& t, py::handle dim, bool keepdim) {
          return extremum(is_max, t, dim, keepdim);
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
    b.both(
        is_max ? "argmax" : "argmin",
        [is_max](const Tensor& t, py::handle dim, bool keepdim) {
          std::optional<int64_t> d;
          if (!dim.is_none()) d = one_dim(dim, "argmax");
          return is_max ? t.argmax(d, keepdim) : t.argmin(d, keepdim);
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
    b.both(
        is_max ? "amax" : "amin",
        [is_max](const Tensor& t, py::handle dim, bool keepdim) {
          std::vector<int64_t> d = to_int_list(dim, "amax", "dim");
          return is_max ? t.amax(d, keepdim) : t.amin(d, keepdim);
        },
        py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  }
  b.both(
      "aminmax",
      [](const Tensor& t, py::handle dim, bool keepdim) {
        std::optional<int64_t> d;
        if (!dim.is_none()) d = one_dim(dim, "aminmax");
        return return_pair("aminmax", ember::aminmax(t, d, keepdim));
      },
      py::kw_only(), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  b.both(
      "norm",
      [](const Tensor& t, py::handle p, py::handle dim, bool keepdim, py::handle dtype) {
        Scalar ps = 2;
        if (PyUnicode_Check(p.ptr())) {
          std::string s = p.cast<std::string>();
          if (s != "fro")
            throw std::runtime_error("norm(): only p='fro' is supported among string norms, got '" +
                                     s + "'");
        } else if (!p.is_none()) {
          ps = to_scalar(p, "norm", "p");
        }
        Tensor x = dtype.is_none() ? t : t.to(to_dtype(dtype, "norm"));
        if (dim.is_none()) return x.norm(ps);
        return x.norm(ps, *to_dims(dim, "norm"), keepdim);
      },
      py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false,
      py::arg("dtype") = py::none());
  b.both(
      "logsumexp",
      [](const Tensor& t, py::handle dim, bool keepdim) {
        return t.logsumexp(*to_dims(dim, "logsumexp"), keepdim);
      },
      py::arg("dim"), py::arg("keepdim") = false);
  for (bool log : {false, true}) {
    b.both(
        log ? "log_softmax" : "softmax",
        [log](const Tensor& t, py::handle dim, py::handle dtype) {
          int64_t d = one_dim(dim, "softmax");
          std::optional<Dtype> dt = to_optional_dtype(dtype, "softmax");
          LongOpGilRelease gil(t.numel());
          return log ? ember::log_softmax(t, d, dt) : ember::softmax(t, d, dt);
        },
        py::arg("dim"), py::arg("dtype") = py::none());
  }
  for (bool prod : {false, true}) {
    b.both(
        prod ? "cumprod" : "cumsum",
        [prod](const Tensor& t, py::handle dim, py::handle dtype) {
          int64_t d = one_dim(dim, "cumsum");
          std::optional<Dtype> dt = to_optional_dtype(dtype, "cumsum");
          return prod ? t.cumprod(d, dt) : t.cumsum(d, dt);
        },
        py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  }
  for (bool all : {true, false}) {
    b.both(
        all ? "all" : "any",
        [all](const Tensor& t, py::handle dim, bool keepdim) {
          if (dim.is_none()) return all ? t.all() : t.any();
          int64_t d = one_dim(dim, "all");
          return all ? t.all(d, keepdim) : t.any(d, keepdim);
        },
        py::arg("dim") = py::none(), py::arg("keepdim") = false);
  }
  b.both(
      "count_nonzero",
      [](const Tensor& t, py::handle dim) {
        Dims d = to_dims(dim, "count_nonzero");
        return d ? t.count_nonzero(IntArrayRef(*d)) : t.count_nonzero();
      },
      py::arg("dim") = py::none());
  b.both(
      "topk",
      [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
        return return_pair("topk", t.topk(k, dim, largest, sorted));
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  b.both(
      "sort",
      [](const Tensor& t, int64_t dim, bool descending, bool stable) {
        return return_pair("sort", ember::sort(t, dim, descending, stable));
      },
      py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  b.both(
      "argsort",
      [](const Tensor& t, int64_t dim, bool descending, bool stable) {
        return ember::argsort(t, dim, descending, stable);
      },
      py::arg("dim") = -1, py::arg("descending") = false, py::kw_only(), py::arg("stable") = false);
  b.both(
      "kthvalue",
      [](const Tensor& t, int64_t k, int64_t dim, bool keepdim) {
        return return_pair("kthvalue", ember::kthvalue(t, k, dim, keepdim));
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);
  b.both(
      "median",
      [](const Tensor& t, py::handle dim, bool keepdim) -> py::object {
        if (dim.is_none()) return wrap(ember::median(t));
        return return_pair("median", ember::median(t, one_dim(dim, "median"), keepdim));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  b.both(
      "nanmedian",
      [](const Tensor& t, py::handle dim, bool keepdim) -> py::object {
        if (dim.is_none()) return wrap(ember::nanmedian(t));
        return return_pair("nanmedian",
                           ember::nanmedian(t, to_int(dim, "nanmedian", "dim"), keepdim));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  b.function(
      "_linalg_vector_norm",
      [](const Tensor& t, double ord, py::handle dim, bool keepdim, py::handle dtype) {
        std::vector<int64_t> d;
        if (!dim.is_none()) d = to_int_list(dim, "vector_norm", "dim");
        Tensor x = dtype.is_none() ? t : t.to(to_dtype(dtype, "vector_norm"));
        return ember::linalg_vector_norm(x, ord, d, keepdim);
      },
      py::arg("x"), py::arg("ord") = 2.0, py::arg("dim") = py::none(), py::arg("keepdim") = false,
      py::kw_only(), py::arg("dtype") = py::none());
  b.both(
      "mode",
      [](const Tensor& t, int64_t dim, bool keepdim) {
        return return_pair("mode", ember::mode(t, dim, keepdim));
      },
      py::arg("dim") = -1, py::arg("keepdim") = false);
}

}  // namespace ember::python
