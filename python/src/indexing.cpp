// t[index] and t[index] = value with Python's and PyTorch's rules: ints, slices (any __index__
// bounds), None, Ellipsis, bools, bool masks, integer tensors and sequences. The C++ index
// (Tensor::index / index_put_) implements views, advanced indexing and its transposition rule;
// this file only turns the Python index into its TensorIndex list.
#include <utility>

#include "common.h"

namespace ember::python {

Tensor tensor_from_data(py::handle data, std::optional<Dtype> dtype, std::optional<Device> device,
                        bool requires_grad);

namespace {

std::optional<int64_t> slice_bound(PyObject* o) {
  if (o == Py_None) return std::nullopt;
  return to_int(o, "index", "slice bound");
}

TensorIndex one_index(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return TensorIndex(o == Py_True);
  if (PyLong_Check(o)) return TensorIndex(to_int(h, "index", "index"));
  if (PySlice_Check(o)) {
    auto* s = reinterpret_cast<PySliceObject*>(o);
    std::optional<int64_t> step = slice_bound(s->step);
    if (step && *step <= 0) {
      if (*step == 0) throw py::value_error("slice step cannot be zero");
      throw py::value_error("step must be greater than zero");
    }
    indexing::Slice sl;
    sl.start = slice_bound(s->start);
    sl.stop = slice_bound(s->stop);
    sl.step = step;
    return TensorIndex(sl);
  }
  if (o == Py_None) return TensorIndex(indexing::None);
  if (o == Py_Ellipsis) return TensorIndex(indexing::Ellipsis);
  if (is_tensor(h)) return TensorIndex(unwrap(h));
  if (PyUnicode_Check(o) || PyBytes_Check(o))
    throw py::type_error(
        "string indices are not supported: only integers, slices (`:`), "
        "ellipsis (`...`), None and long or byte tensors are valid indices");
  if (PySequence_Check(o)) {
    // A list of ints (or bools) is an advanced index; [] selects nothing (an int64 index).
    if (PySequence_Size(o) == 0) return TensorIndex(empty({0}, {.dtype = kInt64}));
    return TensorIndex(tensor_from_data(h, std::nullopt, std::nullopt, false));
  }
  if (PyIndex_Check(o)) return TensorIndex(to_int(h, "index", "index"));
  throw py::index_error(
      "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
      "Variables are valid indices (got " +
      std::string(Py_TYPE(o)->tp_name) + ")");
}

// PyTorch's treatSequenceAsTuple (numpy's legacy rule): a short list that holds a tensor, a
// sequence, a slice, Ellipsis or None is a tuple of indices; other lists are one advanced index.
bool sequence_as_tuple(py::handle h) {
  PyObject* o = h.ptr();
  if (PyTuple_Check(o)) return true;
  if (is_tensor(h) || !PySequence_Check(o) || PyUnicode_Check(o)) return false;
  Py_ssize_t n = PySequence_Size(o);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    py::object item = py::reinterpret_steal<py::object>(PySequence_GetItem(o, i));
    if (!item) throw py::error_already_set();
    PyObject* p = item.ptr();
    if (is_tensor(item) || PySlice_Check(p) || p == Py_Ellipsis || p == Py_None ||
        (PySequence_Check(p) && !PyUnicode_Check(p)))
      return true;
  }
  return false;
}

std::vector<TensorIndex> to_indices(py::handle index) {
  std::vector<TensorIndex> out;
  if (sequence_as_tuple(index)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(index);
    out.reserve(seq.size());
    bool ellipsis = false;
    for (py::handle item : seq) {
      // NumPy's rule (PyTorch 1.13 accepted t[..., ...] by accident and failed on t[..., ..., 0]).
      if (item.ptr() == Py_Ellipsis && std::exchange(ellipsis, true))
        throw py::index_error("an index can only have a single ellipsis ('...')");
      out.push_back(one_index(item));
    }
  } else {
    out.push_back(one_index(index));
  }
  return out;
}

bool is_advanced(const TensorIndex& i) { return i.kind() == TensorIndex::Kind::Tensor; }

// PyTorch's index_put_ takes the value's dtype as is through an advanced index (a single bool
// mask with a one-element value excepted, which becomes a masked fill): another dtype is an
// error there, while basic indexing copies and converts.
void check_put_dtype(const Tensor& t, const std::vector<TensorIndex>& indices, const Tensor& v) {
  if (v.dtype() == t.dtype()) return;
  int advanced = 0;
  bool mask = false;
  for (const TensorIndex& i : indices)
    if (is_advanced(i)) {
      ++advanced;
      mask = i.tensor().dtype() == kBool || i.tensor().dtype() == kUInt8;
    }
  if (advanced == 0 || (advanced == 1 && mask && v.numel() == 1)) return;
  throw std::runtime_error(std::string("[index_put_] Index put requires the source and destination "
                                       "dtypes match, got ") +
                           dtype_name(t.dtype()) + " for the destination and " +
                           dtype_name(v.dtype()) + " for the source.");
}

}  // namespace

void bind_indexing(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls) {
  cls.def("__getitem__", [](const Tensor& t, py::handle index) {
    // The common cases first, without building a list: t[i] and t[a:b].
    PyObject* o = index.ptr();
    if (PyLong_Check(o) && !PyBool_Check(o)) {
      if (t.dim() == 0)
        throw py::index_error(
            "invalid index of a 0-dim tensor. Use `tensor.item()` "
            "in Python or `tensor.item<T>()` in C++ to convert a "
            "0-dim tensor to a number");
      return t.select(0, to_int(index, "index", "index"));
    }
    std::vector<TensorIndex> indices = to_indices(index);
    Tensor out = without_gil(t.numel(), [&] { return t.index(indices); });
    // t[...] and t[()] are new views in PyTorch, not the same object.
    return out.is_same(t) ? t.alias() : out;
  });
  cls.def("__setitem__", [](const Tensor& t, py::handle index, py::handle value) {
    std::vector<TensorIndex> indices = to_indices(index);
    if (is_tensor(value)) {
      Tensor v = unwrap(value);
      check_put_dtype(t, indices, v);
      without_gil(v.numel(), [&] { return t.index_put_(indices, v); });
    } else if (is_scalar(value)) {
      t.index_put_(indices, to_scalar(value, "__setitem__", "value"));
    } else {  // a list is not a value, as in PyTorch: ember.tensor(list) is
      throw py::type_error("can't assign a " + std::string(Py_TYPE(value.ptr())->tp_name) +
                           " to a " + py::repr(dtype_object(t.dtype())).cast<std::string>() +
                           " tensor");
    }
  });
  cls.def(
      "index_put_",
      [](const Tensor& t, py::handle indices, const Tensor& values, bool accumulate) {
        std::vector<TensorIndex> idx;
        for (py::handle i : py::reinterpret_borrow<py::sequence>(indices))
          idx.push_back(i.is_none() ? TensorIndex(indexing::Slice()) : one_index(i));
        return t.index_put_(idx, values, accumulate);
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false);
}

}  // namespace ember::python
