// The hottest operators without pybind11's dispatch: a + b, a - b, a * b, a / b between two
// tensors and t[i], t[a:b] go straight from CPython's type slots to the C++ op. Anything else
// (numbers, other types, reflected forms, complex indices) takes the bound methods as before,
// so the semantics live in one place (tensor.cpp, indexing.cpp); this file only skips the
// method lookup and argument conversion, which cost about as much as the op itself.
#include "common.h"

namespace ember::python {
namespace {

binaryfunc g_getitem;  // the slot pybind11 installed (it calls __getitem__)

// Python's binary operator protocol over the bound methods: a.__add__(b), then b.__radd__(a).
// (CPython's generic slot would no longer call them once its slot is replaced.)
PyObject* call_dunders(PyObject* a, PyObject* b, PyObject* name, PyObject* reflected) {
  if (is_tensor(a)) {
    PyObject* r = PyObject_CallMethodOneArg(a, name, b);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
  }
  if (is_tensor(b)) return PyObject_CallMethodOneArg(b, reflected, a);
  Py_RETURN_NOTIMPLEMENTED;
}

struct DunderNames {
  PyObject* name;
  PyObject* reflected;
};

template <DunderNames* Names, Tensor (*Op)(const Tensor&, const Tensor&)>
PyObject* binary_slot(PyObject* a, PyObject* b) {
  if (is_tensor(a) && is_tensor(b)) {
    try {
      Tensor x = unwrap(a), y = unwrap(b);
      if (work_sum(x.numel(), y.numel()) < LongOpGilRelease::kThreshold)
        return wrap(Op(x, y)).release().ptr();
    } catch (...) {
      set_python_error(std::current_exception());
      return nullptr;
    }
  }
  return call_dunders(a, b, Names->name, Names->reflected);
}

DunderNames g_add, g_sub, g_mul, g_div;

Tensor add_op(const Tensor& a, const Tensor& b) { return ember::add(a, b); }
Tensor sub_op(const Tensor& a, const Tensor& b) { return ember::sub(a, b); }
Tensor mul_op(const Tensor& a, const Tensor& b) { return ember::mul(a, b); }
Tensor div_op(const Tensor& a, const Tensor& b) { return ember::div(a, b); }

// t[i] (a select) and t[start:stop:step] with a positive step (a slice of dim 0): views, as
// Tensor::index makes them.
PyObject* getitem_slot(PyObject* self, PyObject* key) {
  try {
    if (PyLong_CheckExact(key)) {
      Tensor t = unwrap(self);
      if (t.dim() > 0) {
        int overflow = 0;
        long long i = PyLong_AsLongLongAndOverflow(key, &overflow);
        if (!overflow) return wrap(t.select(0, i)).release().ptr();
      }
    } else if (PySlice_Check(key)) {
      auto* s = reinterpret_cast<PySliceObject*>(key);
      auto bound = [](PyObject* o, std::optional<int64_t>& out) {
        if (o == Py_None) return true;
        if (!PyLong_CheckExact(o)) return false;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        out = v;
        return overflow == 0;
      };
      std::optional<int64_t> start, stop, step;
      Tensor t = unwrap(self);
      if (t.dim() > 0 && bound(s->start, start) && bound(s->stop, stop) && bound(s->step, step) &&
          step.value_or(1) > 0)
        return wrap(t.slice(0, start, stop, step.value_or(1))).release().ptr();
    }
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
  return g_getitem(self, key);
}

}  // namespace

void install_fast_paths(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls) {
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  PyNumberMethods* num = type->tp_as_number;
  PyMappingMethods* map = type->tp_as_mapping;
  if (!num || !map || !num->nb_add || !map->mp_subscript)
    throw std::runtime_error("ember._C: Tensor's number and mapping slots are missing");
  auto names = [](const char* name, const char* reflected) {
    return DunderNames{PyUnicode_InternFromString(name), PyUnicode_InternFromString(reflected)};
  };
  g_add = names("__add__", "__radd__");
  g_sub = names("__sub__", "__rsub__");
  g_mul = names("__mul__", "__rmul__");
  g_div = names("__truediv__", "__rtruediv__");
  g_getitem = map->mp_subscript;
  num->nb_add = binary_slot<&g_add, add_op>;
  num->nb_subtract = binary_slot<&g_sub, sub_op>;
  num->nb_multiply = binary_slot<&g_mul, mul_op>;
  num->nb_true_divide = binary_slot<&g_div, div_op>;
  map->mp_subscript = getitem_slot;
  PyType_Modified(type);
}

}  // namespace ember::python
