// ember.save / ember.load over the C++ checkpoint code: Python object trees (tensors, dicts,
// OrderedDicts, lists, tuples, numbers, strings, None) to ember::Value and back, so the files
// are PyTorch's own format, storage sharing included.
#include "common.h"

namespace ember::python {

// collections.OrderedDict, looked up once and kept for the life of the process (a static
// py::object would be released after the interpreter is gone).
static py::handle ordered_dict_type() {
  static PyObject* type =
      py::object(py::module_::import("collections").attr("OrderedDict")).release().ptr();
  return type;
}

Value to_value(py::handle o, int depth) {
  if (depth > 200) throw py::value_error("save(): the object is nested more than 200 levels deep");
  PyObject* p = o.ptr();
  if (p == Py_None) return Value();
  if (PyBool_Check(p)) return Value(p == Py_True);
  if (PyLong_Check(p)) return Value(to_int(o, "save", "obj"));
  if (PyFloat_Check(p)) return Value(PyFloat_AS_DOUBLE(p));
  if (PyUnicode_Check(p)) return Value(o.cast<std::string>());
  if (is_tensor(o)) return Value(unwrap(o));
  if (PyDict_Check(p)) {
    Dict d;
    d.set_ordered(py::isinstance(o, ordered_dict_type()));
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(o))
      d.insert(to_value(k, depth + 1), to_value(v, depth + 1));
    py::object meta = py::getattr(o, "_metadata", py::none());
    if (!meta.is_none()) d.set_metadata(to_value(meta, depth + 1));
    return Value(std::move(d));
  }
  if (PyList_Check(p)) {
    List l;
    for (py::handle item : py::reinterpret_borrow<py::list>(o))
      l.push_back(to_value(item, depth + 1));
    return Value(std::move(l));
  }
  if (PyTuple_Check(p)) {
    Tuple t;
    for (py::handle item : py::reinterpret_borrow<py::tuple>(o))
      t.items.push_back(to_value(item, depth + 1));
    return Value(std::move(t));
  }
  throw py::type_error(
      "save(): ember saves tensors, numbers, strings, None and lists, tuples and "
      "dicts of them; got " +
      std::string(Py_TYPE(p)->tp_name));
}

py::object from_value(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None:
      return py::none();
    case Value::Kind::Bool:
      return py::bool_(v.to_bool());
    case Value::Kind::Int:
      return py::int_(v.to_int());
    case Value::Kind::Double:
      return py::float_(v.to_double());
    case Value::Kind::String:
      return py::str(v.to_string());
    case Value::Kind::Tensor:
      return wrap(v.to_tensor());
    case Value::Kind::List: {
      py::list out;
      for (const Value& item : v.to_list()) out.append(from_value(item));
      return out;
    }
    case Value::Kind::Tuple: {
      const Tuple& t = v.to_tuple();
      py::tuple out(t.items.size());
      for (size_t i = 0; i < t.items.size(); ++i) out[i] = from_value(t.items[i]);
      return out;
    }
    case Value::Kind::Dict: {
      const Dict& d = v.to_dict();
      py::object out = d.ordered() ? ordered_dict_type()() : py::dict();
      for (const auto& [k, val] : d) out[from_value(k)] = from_value(val);
      if (d.ordered() && !d.metadata().is_none()) out.attr("_metadata") = from_value(d.metadata());
      return out;
    }
  }
  return py::none();
}

void bind_serialize(py::module_& m) {
  m.def(
      "_save",
      [](py::handle obj, const std::string& path, bool sync) {
        Value v = to_value(obj, 0);
        py::gil_scoped_release release;
        save(v, path, {.sync = sync});
      },
      py::arg("obj"), py::arg("path"), py::arg("sync") = false);
  m.def(
      "_load",
      [](const std::string& path, py::handle map_location, bool weights_only, bool mmap) {
        LoadOptions o;
        o.weights_only = weights_only;
        o.mmap = mmap;
        if (!map_location.is_none()) o.map_location = MapLocation(to_device(map_location, "load"));
        Value v;
        {
          py::gil_scoped_release release;
          v = load(path, o);
        }
        return from_value(v);
      },
      py::arg("path"), py::arg("map_location") = py::none(), py::arg("weights_only") = true,
      py::arg("mmap") = false);
}

}  // namespace ember::python
