// Python arguments to ember's values and back (common.h), with PyTorch's TypeErrors.
#include <cmath>
#include <limits>
#include <random>

#include "common.h"
#include "core/tensor_impl_mutators.h"

namespace ember::python {

static PyTypeObject* g_tensor_type = nullptr;
static PyObject* g_size_type = nullptr;  // ember.Size, registered by ember/__init__.py
static PyObject* g_dtypes[kNumDtypes] = {};

PyTypeObject* tensor_type() { return g_tensor_type; }
void set_tensor_type(PyTypeObject* t) { g_tensor_type = t; }

Tensor unwrap(py::handle h) {
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  auto vh = inst->get_value_and_holder();
  if (!vh.holder_constructed())
    throw py::type_error("ember.Tensor: the object was not initialized");
  return Tensor(vh.holder<intrusive_ptr<TensorImpl>>());
}

// What pybind11's holder caster does (type_caster_generic::cast), without its two lookups of
// the C++ object's dynamic type: every tensor is a TensorImpl, so the type is known. This is on
// the path of every op's result.
py::object wrap(Tensor t) {
  if (!t.defined()) return py::none();
  static const py::detail::type_info* tinfo = py::detail::get_type_info(typeid(TensorImpl));
  TensorImpl* impl = t.impl();
  if (py::handle existing = py::detail::find_registered_python_instance(impl, tinfo))
    return py::reinterpret_steal<py::object>(existing);  // the tensor's one Python object
  auto inst = py::reinterpret_steal<py::object>(py::detail::make_new_instance(tinfo->type));
  auto* wrapper = reinterpret_cast<py::detail::instance*>(inst.ptr());
  py::detail::values_and_holders(wrapper).begin()->value_ptr() = impl;
  wrapper->owned = true;
  tinfo->init_instance(wrapper, &t.impl_ptr());  // copies the holder, registers the instance
  return inst;
}

static std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

void type_error(const char* op, const std::string& expected, py::handle got) {
  throw py::type_error(std::string(op) + "(): argument must be " + expected + ", not " +
                       type_name(got));
}

static void arg_type_error(const char* op, const char* arg, const std::string& expected,
                           py::handle got) {
  throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be " + expected +
                       ", not " + type_name(got));
}

bool is_scalar(py::handle h) {
  PyObject* o = h.ptr();
  return PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) ||
         (!is_tensor(h) && (PyIndex_Check(o) || PyNumber_Check(o)) && !PySequence_Check(o) &&
          !PyComplex_Check(o));
}

static int64_t long_value(PyObject* o, const char* op) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0)
    throw std::runtime_error(std::string(op) +
                             "(): Overflow when unpacking long (the value does "
                             "not fit in int64)");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

Scalar to_scalar(py::handle h, const char* op, const char* arg) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) return Scalar(long_value(o, op));
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (is_tensor(h)) {
    Tensor t = unwrap(h);
    if (t.numel() != 1)
      throw std::runtime_error(std::string(op) + "(): a tensor with " + std::to_string(t.numel()) +
                               " elements cannot be used as the number '" + arg + "'");
    return t.item();
  }
  if (PyComplex_Check(o)) arg_type_error(op, arg, "a real number (ember has no complex dtype)", h);
  // NumPy scalars and other numbers: integers by __index__, the rest by __float__.
  if (PyIndex_Check(o)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    return Scalar(long_value(i.ptr(), op));
  }
  if (PyNumber_Check(o) && !PySequence_Check(o)) {
    double d = PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    py::module_ np = py::module_::import("numpy");
    if (py::isinstance(h, np.attr("bool_"))) return Scalar(d != 0);
    return Scalar(d);
  }
  arg_type_error(op, arg, "Number", h);
  throw;  // unreachable
}

int64_t to_int(py::handle h, const char* op, const char* arg) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) return long_value(o, op);
  if (is_tensor(h)) {
    Tensor t = unwrap(h);
    if (t.numel() == 1 && is_integral(t.dtype())) return t.item().to_int();
  } else if (!PyBool_Check(o) && !PyFloat_Check(o) && PyIndex_Check(o)) {
    py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!i) throw py::error_already_set();
    return long_value(i.ptr(), op);
  }
  arg_type_error(op, arg, "int", h);
  throw;
}

std::vector<int64_t> to_int_list(py::handle h, const char* op, const char* arg) {
  if (is_tensor(h)) {
    Tensor t = unwrap(h);
    if (t.dim() <= 1 && is_integral(t.dtype())) return t.to(kInt64).contiguous().tolist<int64_t>();
    arg_type_error(op, arg, "tuple of ints", h);
  }
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return {to_int(h, op, arg)};
  if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
    arg_type_error(op, arg, "tuple of ints", h);
  py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
  std::vector<int64_t> out;
  out.reserve(seq.size());
  for (py::handle item : seq) {
    PyObject* o = item.ptr();
    if (PyBool_Check(o) || PyFloat_Check(o) ||
        !(PyLong_Check(o) || PyIndex_Check(o) || is_tensor(item)))
      throw py::type_error(std::string(op) + "(): argument '" + arg +
                           "' must be tuple of ints, but found element of type " + type_name(item));
    out.push_back(to_int(item, op, arg));
  }
  return out;
}

std::vector<int64_t> to_sizes(py::args args, const char* op) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_int_list(args[0], op, "size");
  std::vector<int64_t> out;
  out.reserve(args.size());
  for (py::handle a : args) {
    if (!PyLong_Check(a.ptr()) || PyBool_Check(a.ptr()))
      throw py::type_error(std::string(op) +
                           "(): argument 'size' must be tuple of ints, but found "
                           "element of type " +
                           type_name(a));
    out.push_back(to_int(a, op, "size"));
  }
  return out;
}

std::optional<std::vector<int64_t>> to_dims(py::handle h, const char* op) {
  if (h.is_none()) return std::nullopt;
  return to_int_list(h, op, "dim");
}

// ── dtype ────────────────────────────────────────────────────────────────────
struct DtypeObject {
  Dtype dtype;
};

py::object dtype_object(Dtype d) { return py::reinterpret_borrow<py::object>(g_dtypes[int(d)]); }

Dtype to_dtype(py::handle h, const char* op) {
  if (py::isinstance<DtypeObject>(h)) return h.cast<const DtypeObject&>().dtype;
  // Python's own types, as PyTorch accepts them: float -> float64, int -> int64, bool.
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return kFloat64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return kInt64;
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return kBool;
  arg_type_error(op, "dtype", "torch.dtype", h);
  throw;
}

std::optional<Dtype> to_optional_dtype(py::handle h, const char* op) {
  if (h.is_none()) return std::nullopt;
  return to_dtype(h, op);
}

Device to_device(py::handle h, const char* op) {
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (PyUnicode_Check(h.ptr())) return Device(h.cast<std::string>());
  if (PyLong_Check(h.ptr())) {  // an ordinal means a CUDA device, as in PyTorch
    int64_t i = to_int(h, op, "device");
    if (i < 0) throw py::value_error("Device index must not be negative");
    return Device(kCUDA, int(i));
  }
  arg_type_error(op, "device", "torch.device or str", h);
  throw;
}

std::optional<Device> to_optional_device(py::handle h, const char* op) {
  if (h.is_none()) return std::nullopt;
  return to_device(h, op);
}

py::object device_object(Device d) { return py::cast(d); }

py::object size_object(IntArrayRef sizes) {
  py::tuple t(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) t[i] = py::int_(sizes[i]);
  if (!g_size_type) return t;
  return py::reinterpret_steal<py::object>(PyObject_CallOneArg(g_size_type, t.ptr()));
}

py::object scalar_object(const Scalar& s) {
  if (s.is_bool()) return py::bool_(s.to_bool());
  if (s.is_integral()) return py::int_(s.to_int());
  return py::float_(s.to_double());
}

Tensor to_tensor(py::handle h, const char* op, const char* arg) {
  if (is_tensor(h)) return unwrap(h);
  arg_type_error(op, arg, "Tensor", h);
  throw;
}

std::vector<Tensor> to_tensor_list(py::handle h, const char* op, const char* arg) {
  if (is_tensor(h) || !PySequence_Check(h.ptr()) || PyUnicode_Check(h.ptr()))
    arg_type_error(op, arg, "tuple of Tensors", h);
  std::vector<Tensor> out;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(h)) {
    if (!is_tensor(item))
      throw py::type_error(std::string(op) + "(): argument '" + arg +
                           "' must be tuple of Tensors, but found element of type " +
                           type_name(item));
    out.push_back(unwrap(item));
  }
  return out;
}

void bind_types(py::module_& m) {
  py::class_<DtypeObject> dtype(m, "dtype");
  dtype
      .def_property_readonly("is_floating_point",
                             [](const DtypeObject& d) { return is_floating_point(d.dtype); })
      .def_property_readonly(
          "is_signed", [](const DtypeObject& d) { return d.dtype != kBool && d.dtype != kUInt8; })
      .def_property_readonly("is_complex", [](const DtypeObject&) { return false; })
      .def_property_readonly("itemsize", [](const DtypeObject& d) { return itemsize(d.dtype); })
      .def("__repr__",
           [](const DtypeObject& d) { return std::string("torch.") + dtype_name(d.dtype); })
      .def("__reduce__", [](const DtypeObject& d) { return std::string(dtype_name(d.dtype)); });
  for (int i = 0; i < kNumDtypes; ++i) {
    py::object o = py::cast(DtypeObject{Dtype(i)});
    g_dtypes[i] = o.release().ptr();  // immortal: dtypes live as long as the interpreter
    m.attr(dtype_name(Dtype(i))) = dtype_object(Dtype(i));
  }

  py::class_<Device>(m, "device")
      .def(py::init([](py::object spec, py::object index) {
             if (py::isinstance<Device>(spec)) return spec.cast<Device>();
             if (PyLong_Check(spec.ptr()))
               return Device(kCUDA, int(to_int(spec, "device", "index")));
             std::string s = spec.cast<std::string>();
             if (index.is_none()) return Device(s);
             if (s.find(':') != std::string::npos)
               throw py::value_error(
                   "type (string) must not include an index because index was "
                   "passed explicitly: " +
                   s);
             int64_t i = to_int(index, "device", "index");
             if (i < 0) throw py::value_error("Device index must not be negative");
             Device d(s);
             if (d.is_cpu() && i != 0)
               throw std::runtime_error("CPU device index must be -1 or zero, got " +
                                        std::to_string(i));
             return Device(d.type(), int(i));
           }),
           py::arg("type"), py::arg("index") = py::none())
      .def_property_readonly("type", [](const Device& d) { return d.is_cpu() ? "cpu" : "cuda"; })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               return d.has_index() ? py::object(py::int_(d.index())) : py::none();
                             })
      .def("__eq__",
           [](const Device& a, py::handle b) {
             return py::isinstance<Device>(b) && a == b.cast<Device>();
           })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.str()); })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string r = std::string("device(type='") + (d.is_cpu() ? "cpu" : "cuda") + "'";
             if (d.has_index()) r += ", index=" + std::to_string(d.index());
             return r + ")";
           })
      .def("__reduce__", [](const Device& d) {
        return py::make_tuple(py::module_::import("ember").attr("device"), py::make_tuple(d.str()));
      });

  m.def("_set_size_type", [](py::object type) { g_size_type = type.release().ptr(); });
  m.def("get_default_dtype", [] { return dtype_object(default_dtype()); });
  m.def("set_default_dtype", [](py::handle d) {
    Dtype t = to_dtype(d, "set_default_dtype");
    if (t != kFloat32 && t != kFloat64)
      throw py::type_error("only floating-point types are supported as the default type");
    set_default_dtype(t);
  });
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) {
        return dtype_object(
            promote_types(to_dtype(a, "promote_types"), to_dtype(b, "promote_types")));
      },
      py::arg("type1"), py::arg("type2"));
  m.def(
      "result_type",
      [](py::handle a, py::handle b) {
        // Tensors and Python numbers in either place (PyTorch's category rules for scalars).
        Tensor ta, tb;
        std::vector<Operand> ops;
        if (is_tensor(a)) ta = unwrap(a);
        if (is_tensor(b)) tb = unwrap(b);
        ops.push_back(ta.defined() ? Operand(ta) : Operand(to_scalar(a, "result_type", "tensor")));
        ops.push_back(tb.defined() ? Operand(tb) : Operand(to_scalar(b, "result_type", "other")));
        return dtype_object(result_type(ops));
      },
      py::arg("tensor"), py::arg("other"));
  m.def(
      "is_floating_point", [](const Tensor& t) { return t.is_floating_point(); }, py::arg("input"));
  m.def(
      "manual_seed",
      [](py::handle seed) {
        manual_seed(uint64_t(to_int(seed, "manual_seed", "seed")));
        return py::module_::import("ember").attr("default_generator");
      },
      py::arg("seed"));
  m.def("seed", [] {
    uint64_t s = std::random_device()() | (uint64_t(std::random_device()()) << 32);
    s &= (uint64_t(1) << 63) - 1;
    manual_seed(s);
    return s;
  });
  m.def("initial_seed", [] { return default_generator().initial_seed(); });
  py::class_<Generator>(m, "Generator")
      .def(py::init([](py::handle device) {
             if (!device.is_none() && !to_device(device, "Generator").is_cpu())
               throw std::runtime_error("Generator: only CPU generators are in this build");
             return Generator();
           }),
           py::arg("device") = "cpu")
      .def_property_readonly("device", [](const Generator&) { return Device(kCPU); })
      .def("get_state", [](const Generator& g) { return from_vector(g.get_state()); })
      .def(
          "set_state",
          [](Generator& g, const Tensor& state) -> Generator& {
            if (state.dtype() != kUInt8 || state.dim() != 1)
              throw py::type_error("Generator.set_state(): expected a 1-d torch.ByteTensor");
            g.set_state(state.contiguous().tolist<uint8_t>());
            return g;
          },
          py::return_value_policy::reference)
      .def("seed",
           [](Generator& g) {
             uint64_t s = std::random_device()() | (uint64_t(std::random_device()()) << 32);
             s &= (uint64_t(1) << 63) - 1;
             g.manual_seed(s);
             return s;
           })
      .def(
          "manual_seed",
          [](Generator& g, py::handle seed) -> Generator& {
            g.manual_seed(uint64_t(to_int(seed, "manual_seed", "seed")));
            return g;
          },
          py::return_value_policy::reference)
      .def("initial_seed", &Generator::initial_seed);
  m.def("_get_rng_state", [] {
    std::vector<uint8_t> s = default_generator().get_state();
    return from_vector(s);
  });
  m.def("_set_rng_state", [](const Tensor& state) {
    if (state.dtype() != kUInt8 || state.dim() != 1)
      throw py::type_error("set_rng_state(): expected a 1-d torch.ByteTensor");
    default_generator().set_state(state.contiguous().tolist<uint8_t>());
  });
  m.def("_write_out", [](const Tensor& out, const Tensor& result, const std::string& op) {
    return write_out(out, result, op.c_str());
  });
  m.def(
      "set_num_threads",
      [](int64_t n) {
        if (n <= 0) throw std::runtime_error("set_num_threads expects a positive integer");
        set_num_threads(int(n));
      },
      py::arg("int"));
  m.def("get_num_threads", [] { return get_num_threads(); });
  m.def("_cuda_is_available", [] { return cuda::is_available(); });
  m.def("_cuda_device_count", [] { return cuda::device_count(); });
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);
}

}  // namespace ember::python

namespace ember::python {

Tensor write_out(const Tensor& out, const Tensor& result, const char* op) {
  if (result.requires_grad() && is_grad_enabled())
    throw std::runtime_error(std::string(op) +
                             "(): functions with out=... arguments don't support "
                             "automatic differentiation, but one of the arguments requires grad.");
  const bool narrowing = (is_floating_point(result.dtype()) && !is_floating_point(out.dtype())) ||
                         (result.dtype() != kBool && out.dtype() == kBool);
  if (narrowing)
    throw std::runtime_error(std::string(op) + "(): result type " + dtype_name(result.dtype()) +
                             " can't be cast to the desired output type " +
                             dtype_name(out.dtype()));
  if (!std::equal(out.sizes().begin(), out.sizes().end(), result.sizes().begin(),
                  result.sizes().end())) {
    // PyTorch's resize_ of the output: new storage of the result's shape, same tensor object.
    Tensor fresh = empty(result.sizes(), {.dtype = out.dtype(), .device = out.device()});
    TensorImplMutators::set_data(*out.impl(), *fresh.impl());
  }
  return out.copy_(result);
}

py::cpp_function with_out(const py::cpp_function& fn, const py::cpp_function& plain,
                          const char* name) {
  // The first overload (fn) fails to match on the unknown keyword, so plain calls never reach
  // this one and pay nothing for it.
  PyObject* inner = plain.ptr();
  Py_INCREF(inner);  // kept for the life of the process, as the function itself
  std::string op = name;
  return py::cpp_function(
      [inner, op](py::args args, py::kwargs kwargs) -> py::object {
        py::handle fn(inner);
        if (!kwargs.contains("out"))
          return fn(*args, **kwargs);  // raises the signatures' TypeError
        py::object out = kwargs.attr("pop")("out");
        py::object result = fn(*args, **kwargs);
        if (out.is_none()) return result;
        if (!is_tensor(out) || !is_tensor(result))
          throw py::type_error(op + "(): out= takes one tensor here (got " +
                               std::string(Py_TYPE(out.ptr())->tp_name) + ")");
        return wrap(write_out(unwrap(out), unwrap(result), op.c_str()));
      },
      py::name(name), py::sibling(fn));
}

}  // namespace ember::python
