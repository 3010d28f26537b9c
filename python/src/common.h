// What every binding file of the Python package shares: the Tensor type caster (a Python Tensor
// is the pybind11 object of a TensorImpl, so one C++ tensor has one Python object while it is
// alive: `x.grad is x.grad`), and conversions of Python arguments (numbers, dtypes, devices,
// sizes, dims) with PyTorch's rules and errors.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"

PYBIND11_DECLARE_HOLDER_TYPE(T, ember::intrusive_ptr<T>, true)

namespace ember::python {
namespace py = pybind11;

/// The ember.Tensor type object (set once the class is bound).
PyTypeObject* tensor_type();
inline bool is_tensor(py::handle h) { return PyObject_TypeCheck(h.ptr(), tensor_type()); }
/// The Tensor of a Python object already known to be an ember.Tensor.
Tensor unwrap(py::handle h);
/// The Python object for a Tensor (the existing one when it has one); None when undefined.
py::object wrap(Tensor t);

// ── arguments ────────────────────────────────────────────────────────────────
/// A Python bool, int or float (or a one-element tensor, or a NumPy scalar) as a Scalar.
/// `op` and `arg` name the call in the TypeError.
Scalar to_scalar(py::handle h, const char* op, const char* arg);
bool is_scalar(py::handle h);
/// An int (or an object with __index__), refusing bools and floats as PyTorch does.
int64_t to_int(py::handle h, const char* op, const char* arg);
/// Sizes given as *args (zeros(2, 3)) or as one sequence (zeros((2, 3)), zeros([2, 3])).
std::vector<int64_t> to_sizes(py::args args, const char* op);
/// One sequence of ints (a tuple, list, Size or 1-d integer tensor).
std::vector<int64_t> to_int_list(py::handle h, const char* op, const char* arg);
/// dim=None | int | sequence of ints.
std::optional<std::vector<int64_t>> to_dims(py::handle h, const char* op);
Dtype to_dtype(py::handle h, const char* op);
std::optional<Dtype> to_optional_dtype(py::handle h, const char* op);
Device to_device(py::handle h, const char* op);
std::optional<Device> to_optional_device(py::handle h, const char* op);
/// A tensor argument; numbers become 0-d tensors only where `allow_scalar`.
Tensor to_tensor(py::handle h, const char* op, const char* arg);
std::vector<Tensor> to_tensor_list(py::handle h, const char* op, const char* arg);

// ── Python objects for ember's values ────────────────────────────────────────
/// The ember.dtype singleton for a dtype (ember.float32 is the same object every time).
py::object dtype_object(Dtype d);
py::object device_object(Device d);
/// ember.Size(sizes).
py::object size_object(IntArrayRef sizes);
py::object scalar_object(const Scalar& s);

/// Sets the Python error for a C++ exception as the bindings' translators would (for code that
/// runs outside pybind11's dispatcher: fast_paths.cpp).
void set_python_error(std::exception_ptr p);

/// Python object trees (tensors, numbers, strings, None, lists, tuples, dicts) as ember::Value
/// and back (serialize.cpp: save/load, optimizer state and options).
Value to_value(py::handle o, int depth = 0);
py::object from_value(const Value& v);

/// The ember dtype of a numpy.dtype (TypeError for the ones ember lacks).
Dtype numpy_dtype(py::handle dtype);

/// A number beside a tensor (2 - t, torch.pow(2, t)) as a 0-d tensor of the dtype PyTorch
/// computes in, so the tensor-tensor op gives PyTorch's result.
inline Tensor scalar_operand(const Scalar& s, const Tensor& like) {
  return full({}, s, {.dtype = result_type(s, like), .device = like.device()});
}
/// Whether an op on `t` is recorded for autograd (grad mode on, t requires grad).
inline bool recorded(const Tensor& t) { return t.requires_grad() && is_grad_enabled(); }

/// TypeError naming the op, what it accepts and what it got.
[[noreturn]] void type_error(const char* op, const std::string& expected, py::handle got);

// A Python object held from C++ state that may be destroyed without the GIL (a hook in a
// tensor's autograd meta, a Function's ctx in a node): copies and the destructor take the GIL.
class GilObject {
 public:
  explicit GilObject(py::object o) : o_(o.release().ptr()) {}
  GilObject(const GilObject& other) : o_(other.o_) {
    py::gil_scoped_acquire gil;
    Py_XINCREF(o_);
  }
  GilObject& operator=(const GilObject&) = delete;
  ~GilObject() {
    if (!o_ || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(o_);
  }
  py::handle get() const { return o_; }

 private:
  PyObject* o_;
};

/// Releases the GIL for the life of the scope when the work is large enough to be worth the
/// switch (two atomic operations, ~80 ns): small ops keep it, so per-op overhead stays low.
class LongOpGilRelease {
 public:
  explicit LongOpGilRelease(int64_t work) {
    if (work >= kThreshold) state_ = PyEval_SaveThread();
  }
  ~LongOpGilRelease() {
    if (state_) PyEval_RestoreThread(state_);
  }
  LongOpGilRelease(const LongOpGilRelease&) = delete;
  LongOpGilRelease& operator=(const LongOpGilRelease&) = delete;
  static constexpr int64_t kThreshold = 1 << 15;

 private:
  PyThreadState* state_ = nullptr;
};

/// without_gil's estimates from sizes not validated yet (a factory's) or from expanded views
/// (numel 2^40 at stride 0): saturated at INT64_MAX instead of overflowing (undefined behaviour,
/// found by tests/fuzz/python_args_fuzzer: ember.randn(2**62, 2**62)).
inline int64_t work_sum(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}
inline int64_t work_product(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
inline int64_t work_product(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n = work_product(n, s);
  return n;
}

/// Runs `f` (pure C++: no Python object may be touched inside) without the GIL when `work`
/// is large enough: the result is wrapped for Python after the GIL is back.
template <class F>
auto without_gil(int64_t work, F&& f) {
  LongOpGilRelease gil(work);
  return f();
}

// One init function per binding file (module.cpp calls them in order).
void bind_types(py::module_& m);
void bind_tensor(py::module_& m);
void bind_factories(py::module_& m);
void bind_indexing(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);
void bind_autograd(py::module_& m, py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);
void bind_autograd_graph(py::module_& m);
void bind_numpy(py::module_& m, py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);
void bind_serialize(py::module_& m);
void bind_errors(py::module_& m);
void bind_nn_functional(py::module_& m);
void bind_nn_rnn(py::module_& m);  // after bind_nn_functional: adds to its _nn
void bind_optim(py::module_& m);
void bind_amp(py::module_& m);
void bind_profiler(py::module_& m);
void bind_distributed(py::module_& m);
void bind_distributed_checkpoint(py::module_& m);
void bind_activation_checkpoint(py::module_& m);
void install_fast_paths(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);

}  // namespace ember::python

// ember::Tensor <-> ember.Tensor objects.
namespace pybind11::detail {
template <>
struct type_caster<ember::Tensor> {
  PYBIND11_TYPE_CASTER(ember::Tensor, const_name("Tensor"));
  bool load(handle src, bool) {
    if (!ember::python::is_tensor(src)) return false;
    value = ember::python::unwrap(src);
    return true;
  }
  static handle cast(const ember::Tensor& t, return_value_policy, handle) {
    return ember::python::wrap(t).release();
  }
};
}  // namespace pybind11::detail

namespace ember::python {
/// PyTorch's out=: `fn` with one more overload, tried only when the first does not match (a
/// call with an `out` keyword): it calls `plain` (the same function, unchained) without it and
/// writes the result into `out` (write_out).
py::cpp_function with_out(const py::cpp_function& fn, const py::cpp_function& plain,
                          const char* name);
/// Writes `result` into `out` as PyTorch does: resized to the result's shape, converted to
/// out's dtype where PyTorch allows the cast; refused when the result would need a gradient.
Tensor write_out(const Tensor& out, const Tensor& result, const char* op);

/// Binds one function as both ember.NAME(input, ...) and Tensor.NAME(...): one pybind11
/// function object, whose first argument is the tensor (named `input` as in PyTorch).
struct Binder {
  py::module_& m;
  py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls;

  template <class F, class... Extra>
  void both(const char* name, F&& f, const Extra&... extra) {
    py::cpp_function plain(f, py::name(name), py::arg("input"), extra...);
    py::cpp_function fn(std::forward<F>(f), py::name(name), py::arg("input"), extra...);
    fn = with_out(fn, plain, name);
    m.attr(name) = fn;
    cls.attr(name) = py::reinterpret_steal<py::object>(PyInstanceMethod_New(fn.ptr()));
  }
  template <class F, class... Extra>
  void method(const char* name, F&& f, const Extra&... extra) {
    cls.def(name, std::forward<F>(f), extra...);
  }
  template <class F, class... Extra>
  void function(const char* name, F&& f, const Extra&... extra) {
    py::cpp_function plain(f, py::name(name), py::scope(m), extra...);
    py::cpp_function fn(std::forward<F>(f), py::name(name), py::scope(m), extra...);
    m.attr(name) = with_out(fn, plain, name);
  }
  /// The same pybind11 function under another name (PyTorch's aliases: absolute for abs, ...).
  void alias(const char* name, const char* target, bool as_function = true) {
    if (as_function && py::hasattr(m, target)) m.attr(name) = m.attr(target);
    cls.attr(name) = cls.attr(target);
  }
};
void bind_math_methods(Binder& b);
void bind_reduce_methods(Binder& b);
void bind_shape_methods(Binder& b);
void bind_index_methods(Binder& b);
/// Python's (values, indices) pairs: ember.return_types.NAME(values=..., indices=...).
py::object return_pair(const char* name, const std::tuple<Tensor, Tensor>& values);
}  // namespace ember::python
