// The ember.Tensor class: construction, layout properties, conversions to Python numbers, and the
// operators (arithmetic, reflected, in place, comparisons, @) with PyTorch's type promotion.
#include <sstream>

#include "common.h"
#include "ember/cuda.h"

namespace ember::python {

void set_tensor_type(PyTypeObject* t);
void bind_factory_methods(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);

namespace {

using Cls = py::class_<TensorImpl, intrusive_ptr<TensorImpl>>;

// x << n and x >> n as PyTorch computes them: x * 2**n and x / 2**n rounded toward negative
// infinity for integers (an arithmetic shift); floats multiply and divide.
Tensor shift(const Tensor& x, const Tensor& n, bool left) {
  Tensor p = ember::pow(full({}, 2, {.dtype = n.dtype()}), n);
  if (x.is_floating_point() || n.is_floating_point()) return left ? x * p : x / p;
  return left ? x * p : ember::floor_divide(x, p);
}

// Operators take any Python object on the right: a tensor, a number, or something else, for
// which they return NotImplemented so that Python tries the other operand (and raises
// TypeError when neither knows the pair).
template <class TensorFn, class ScalarFn>
py::object binary(const Tensor& self, py::handle other, const char* op, TensorFn tf, ScalarFn sf,
                  bool wrap_when_recorded = false) {
  if (is_tensor(other)) {
    Tensor o = unwrap(other);
    return wrap(without_gil(work_sum(self.numel(), o.numel()), [&] { return tf(self, o); }));
  }
  if (is_scalar(other)) {
    Scalar s = to_scalar(other, op, "other");
    // Python's PyTorch wraps the number in a tensor, so a recorded x * 2 is MulBackward0 (the
    // C++ scalar overloads are LibTorch's MulBackward1): same values, PyTorch's node names.
    if (wrap_when_recorded && recorded(self)) return wrap(tf(self, scalar_operand(s, self)));
    return wrap(without_gil(self.numel(), [&] { return sf(self, s); }));
  }
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

template <class TensorFn>
py::object reflected(const Tensor& self, py::handle other, const char* op, TensorFn tf) {
  if (!is_scalar(other) || is_tensor(other))
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor left = scalar_operand(to_scalar(other, op, "other"), self);
  return wrap(without_gil(self.numel(), [&] { return tf(left, self); }));
}

Tensor tensor_from_args(py::args args) {
  // torch.Tensor(2, 3): uninitialized float32; torch.Tensor(sequence): float32 data;
  // torch.Tensor(tensor): an alias of its data (what nn.Parameter builds on).
  if (args.size() == 1 && is_tensor(args[0])) return unwrap(args[0]).detach();
  if (args.size() == 1 && (PyList_Check(args[0].ptr()) || PyTuple_Check(args[0].ptr())))
    return py::module_::import("ember")
        .attr("tensor")(args[0], py::arg("dtype") = dtype_object(kFloat32))
        .cast<Tensor>();
  if (args.size() == 0) return ember::empty({0});
  return ember::empty(to_sizes(args, "Tensor"));
}

// Tensor.tolist(): nested Python lists of Python numbers, row-major.
template <class T, class Make>
py::object nested_list(const std::vector<T>& flat, IntArrayRef sizes, size_t dim, size_t& pos,
                       Make make) {
  if (dim == sizes.size()) return make(flat[pos++]);
  py::list out(sizes[dim]);
  for (int64_t i = 0; i < sizes[dim]; ++i)
    out[size_t(i)] = nested_list(flat, sizes, dim + 1, pos, make);
  return out;
}

py::object to_list(const Tensor& t) {
  Tensor c = t.detach().cpu();
  size_t pos = 0;
  if (c.is_floating_point())
    return nested_list(c.to(kFloat64).contiguous().tolist<double>(), c.sizes(), 0, pos,
                       [](double v) { return py::float_(v); });
  if (c.dtype() == kBool) {
    std::vector<uint8_t> v = c.to(kUInt8).contiguous().tolist<uint8_t>();
    return nested_list(v, c.sizes(), 0, pos, [](uint8_t b) { return py::bool_(b != 0); });
  }
  return nested_list(c.to(kInt64).contiguous().tolist<int64_t>(), c.sizes(), 0, pos,
                     [](int64_t v) { return py::int_(v); });
}

int64_t one_element(const Tensor& t, const char* what) {
  if (t.numel() != 1)
    throw py::value_error(std::string("only one element tensors can be converted to Python ") +
                          what);
  return 1;
}

}  // namespace

void bind_tensor(py::module_& m) {
  Cls cls(m, "Tensor", py::dynamic_attr());
  set_tensor_type(reinterpret_cast<PyTypeObject*>(cls.ptr()));

  cls.def(py::init([](py::args args) { return tensor_from_args(args).impl_ptr(); }));

  // ── layout ──
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return size_object(t.sizes());
            return py::int_(t.size(to_int(dim, "size", "dim")));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (!dim.is_none()) return py::int_(t.stride(to_int(dim, "stride", "dim")));
            IntArrayRef s = t.strides();
            py::tuple out(s.size());
            for (size_t i = 0; i < s.size(); ++i) out[i] = py::int_(s[i]);
            return out;
          },
          py::arg("dim") = py::none())
      .def("storage_offset", [](const Tensor& t) { return t.storage_offset(); })
      // PyTorch's `device` argument names the CUDA device to pin for; ember's pinned memory is
      // pinned for every device (cudaHostAllocPortable), so any value gives the same result.
      .def(
          "pin_memory", [](const Tensor& t, py::object) { return t.pin_memory(); },
          py::arg("device") = py::none())
      .def(
          "is_pinned", [](const Tensor& t, py::object) { return t.is_pinned(); },
          py::arg("device") = py::none())
      // torch.Tensor.record_stream(s): PyTorch's dispatcher has no CPU kernel for it, so a CPU
      // tensor gets NotImplementedError naming aten::record_stream. The tensor is checked before
      // the argument's type (PyTorch checks the type first) so that a build without CUDA, where
      // no Stream can be made, still refuses a CPU tensor by name.
      .def(
          "record_stream",
          [](const Tensor& t, py::object s) {
            if (!t.is_cuda()) {
              const std::string message =
                  "Could not run 'aten::record_stream' with arguments from the '" +
                  std::string(t.is_cpu() ? "CPU" : t.device().str()) +
                  "' backend: 'aten::record_stream' is only available for CUDA tensors";
              PyErr_SetString(PyExc_NotImplementedError, message.c_str());
              throw py::error_already_set();
            }
            if (!py::isinstance<cuda::Stream>(s)) type_error("record_stream", "Stream", s);
            t.record_stream(s.cast<const cuda::Stream&>());
          },
          py::arg("s"))
      .def(
          "is_contiguous", [](const Tensor& t, py::object) { return t.is_contiguous(); },
          py::arg("memory_format") = py::none())
      .def("dim", [](const Tensor& t) { return t.dim(); })
      .def("ndimension", [](const Tensor& t) { return t.dim(); })
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dim(); })
      .def("numel", [](const Tensor& t) { return t.numel(); })
      .def("nelement", [](const Tensor& t) { return t.numel(); })
      .def("element_size", [](const Tensor& t) { return t.element_size(); })
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.nbytes(); })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.is_cuda(); })
      .def_property_readonly("is_cpu", [](const Tensor& t) { return t.is_cpu(); })
      .def_property_readonly("is_sparse", [](const Tensor&) { return false; })
      .def_property_readonly("is_quantized", [](const Tensor&) { return false; })
      .def_property_readonly("is_meta", [](const Tensor&) { return false; })
      .def("is_floating_point", [](const Tensor& t) { return t.is_floating_point(); })
      .def("is_complex", [](const Tensor&) { return false; })
      .def("is_signed", [](const Tensor& t) { return t.dtype() != kBool && t.dtype() != kUInt8; })
      .def_property_readonly("T", [](const Tensor& t) { return t.T(); })
      .def_property_readonly("mT", [](const Tensor& t) { return t.mT(); })
      .def_property_readonly("_version", [](const Tensor& t) { return t._version(); })
      .def("data_ptr",
           [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()->data()); })
      .def("get_device", [](const Tensor& t) { return t.is_cpu() ? -1 : t.device().index(); });

  // ── to Python ──
  cls.def("item",
          [](const Tensor& t) {
            if (t.numel() != 1)
              throw py::value_error("only one element tensors can be converted to Python scalars");
            return scalar_object(t.item());
          })
      .def("tolist", &to_list)
      .def("__bool__",
           [](const Tensor& t) {
             if (t.numel() != 1)
               throw std::runtime_error(
                   "Boolean value of Tensor with more than one value is ambiguous");
             return t.item().to_bool();
           })
      .def("__float__",
           [](const Tensor& t) {
             one_element(t, "scalars");
             return t.item().to_double();
           })
      .def("__int__",
           [](const Tensor& t) {
             one_element(t, "scalars");
             return t.item().to_int();
           })
      .def("__index__",
           [](const Tensor& t) {
             if (t.numel() != 1 || !is_integral(t.dtype()))
               throw py::type_error(
                   "only integer tensors of a single element can be converted to an index");
             return t.item().to_int();
           })
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      .def("__iter__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("iteration over a 0-d tensor");
             return py::iter(py::cast(t.unbind(0)));
           })
      .def("__hash__",
           [](py::handle self) { return py::int_(reinterpret_cast<uintptr_t>(self.ptr()) >> 4); })
      .def("__repr__", [](const Tensor& t) { return repr(t); })
      .def("__format__",
           [](py::handle self, const std::string& spec) -> py::object {
             Tensor t = unwrap(self);
             if (t.dim() == 0)
               return py::module_::import("builtins").attr("format")(self.attr("item")(), spec);
             return py::module_::import("builtins").attr("object").attr("__format__")(self, spec);
           })
      .def("__contains__", [](const Tensor& t, py::handle v) -> bool {
        if (is_tensor(v)) return t.eq(unwrap(v)).any().item().to_bool();
        if (is_scalar(v))
          return t.eq(to_scalar(v, "__contains__", "element")).any().item().to_bool();
        throw std::runtime_error(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a " +
            std::string(Py_TYPE(v.ptr())->tp_name));
      });

  // ── operators ──
#define EMBER_BINARY_NAMED(pyname, expr_t, expr_s, wrap_when_recorded)                    \
  cls.def(                                                                                \
      pyname,                                                                             \
      [](const Tensor& a, py::handle b) {                                                 \
        return binary(                                                                    \
            a, b, pyname, [](const Tensor& x, const Tensor& y) { return expr_t; },        \
            [](const Tensor& x, const Scalar& y) { return expr_s; }, wrap_when_recorded); \
      },                                                                                  \
      py::is_operator())
#define EMBER_BINARY(pyname, expr_t, expr_s) EMBER_BINARY_NAMED(pyname, expr_t, expr_s, false)
#define EMBER_BINARY_W(pyname, expr_t, expr_s) EMBER_BINARY_NAMED(pyname, expr_t, expr_s, true)
  EMBER_BINARY_W("__add__", ember::add(x, y), ember::add(x, y));
  EMBER_BINARY_W("__radd__", ember::add(y, x), ember::add(x, y));
  EMBER_BINARY_W("__sub__", ember::sub(x, y), ember::sub(x, y));
  EMBER_BINARY_W("__mul__", ember::mul(x, y), ember::mul(x, y));
  EMBER_BINARY_W("__rmul__", ember::mul(y, x), ember::mul(x, y));
  EMBER_BINARY_W("__truediv__", ember::div(x, y), ember::div(x, y));
  EMBER_BINARY("__floordiv__", ember::floor_divide(x, y), ember::floor_divide(x, y));
  EMBER_BINARY("__mod__", ember::remainder(x, y), ember::remainder(x, y));
  EMBER_BINARY("__pow__", ember::pow(x, y), ember::pow(x, y));
  EMBER_BINARY("__lshift__", shift(x, y, true), shift(x, scalar_operand(y, x), true));
  EMBER_BINARY("__rshift__", shift(x, y, false), shift(x, scalar_operand(y, x), false));
  EMBER_BINARY("__ilshift__", x.copy_(shift(x, y, true)),
               x.copy_(shift(x, scalar_operand(y, x), true)));
  EMBER_BINARY("__irshift__", x.copy_(shift(x, y, false)),
               x.copy_(shift(x, scalar_operand(y, x), false)));
  EMBER_BINARY("__and__", x & y, x & y);
  EMBER_BINARY("__rand__", y & x, x & y);
  EMBER_BINARY("__or__", x | y, x | y);
  EMBER_BINARY("__ror__", y | x, x | y);
  EMBER_BINARY("__xor__", x ^ y, x ^ y);
  EMBER_BINARY("__rxor__", y ^ x, x ^ y);
  EMBER_BINARY("__eq__", x.eq(y), x.eq(y));
  EMBER_BINARY("__ne__", x.ne(y), x.ne(y));
  EMBER_BINARY("__lt__", x.lt(y), x.lt(y));
  EMBER_BINARY("__le__", x.le(y), x.le(y));
  EMBER_BINARY("__gt__", x.gt(y), x.gt(y));
  EMBER_BINARY("__ge__", x.ge(y), x.ge(y));
  // In place: the result is the same object.
  EMBER_BINARY_W("__iadd__", x.add_(y), x.add_(y));
  EMBER_BINARY_W("__isub__", x.sub_(y), x.sub_(y));
  EMBER_BINARY_W("__imul__", x.mul_(y), x.mul_(y));
  EMBER_BINARY_W("__itruediv__", x.div_(y), x.div_(y));
  EMBER_BINARY("__ipow__", x.pow_(y), x.pow_(y));
  EMBER_BINARY("__ifloordiv__", x.copy_(ember::floor_divide(x, y)),
               x.copy_(ember::floor_divide(x, y)));
  EMBER_BINARY("__imod__", x.copy_(ember::remainder(x, y)), x.copy_(ember::remainder(x, y)));
  EMBER_BINARY("__iand__", x.copy_(x & y), x.copy_(x & y));
  EMBER_BINARY("__ior__", x.copy_(x | y), x.copy_(x | y));
  EMBER_BINARY("__ixor__", x.copy_(x ^ y), x.copy_(x ^ y));
#undef EMBER_BINARY
#undef EMBER_BINARY_W
#undef EMBER_BINARY_NAMED
#define EMBER_REFLECTED(pyname, expr)                                                          \
  cls.def(                                                                                     \
      pyname,                                                                                  \
      [](const Tensor& a, py::handle b) {                                                      \
        return reflected(a, b, pyname, [](const Tensor& x, const Tensor& y) { return expr; }); \
      },                                                                                       \
      py::is_operator())
  // x is the number as a 0-d tensor, y the tensor.
  cls.def(
      "__rsub__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!is_scalar(b) || is_tensor(b))
          return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return wrap(
            ember::rsub(a, to_scalar(b, "__rsub__", "other")));  // RsubBackward1, as PyTorch
      },
      py::is_operator());
  EMBER_REFLECTED("__rtruediv__", ember::div(x, y));
  EMBER_REFLECTED("__rfloordiv__", ember::floor_divide(x, y));
  EMBER_REFLECTED("__rmod__", ember::remainder(x, y));
  EMBER_REFLECTED("__rpow__", ember::pow(x, y));
#undef EMBER_REFLECTED
  cls.def(
         "__matmul__",
         [](const Tensor& a, py::handle b) -> py::object {
           if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
           Tensor o = unwrap(b);
           return wrap(
               without_gil(work_product(a.numel(), o.dim() ? o.size(-1) : 1), [&] { return a.matmul(o); }));
         },
         py::is_operator())
      .def(
          "__rmatmul__",
          [](const Tensor& a, py::handle b) -> py::object {
            if (!is_tensor(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            return wrap(unwrap(b).matmul(a));
          },
          py::is_operator())
      .def("__neg__", [](const Tensor& t) { return -t; })
      .def("__pos__", [](const Tensor& t) { return t; })
      .def("__abs__", [](const Tensor& t) { return t.abs(); })
      .def("__invert__", [](const Tensor& t) {
        if (t.is_floating_point())
          throw py::type_error(
              "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
        return t.bitwise_not();
      });

  Binder binder{m, cls};
  bind_math_methods(binder);
  bind_reduce_methods(binder);
  bind_shape_methods(binder);
  bind_index_methods(binder);
  bind_factory_methods(cls);
  bind_indexing(cls);
  bind_autograd(m, cls);
  bind_numpy(m, cls);
  install_fast_paths(cls);
}

}  // namespace ember::python
