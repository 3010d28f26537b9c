// ember::Error as the exception class PyTorch raises for the same mistake: IndexError for indices
// and dims out of range, RuntimeError for the rest (shapes, dtypes, devices, autograd), with
// ember's message ("[op] what was expected, what was given").
#include <string_view>

#include "common.h"

namespace ember::python {
namespace {

// PyTorch raises IndexError for a bad index in t[...] and for a dim out of range anywhere, and
// RuntimeError for the same words from other ops (gather's out-of-bounds index).
bool is_index_error(std::string_view msg) {
  if (msg.find("imension out of range") != std::string_view::npos) return true;
  const bool from_indexing =
      msg.starts_with("[index]") || msg.starts_with("[select]") || msg.starts_with("[index_put_]");
  if (!from_indexing) return false;
  static constexpr std::string_view kIndexMessages[] = {
      "out of bounds for dimension",
      "too many indices",
      "index out of range",
      "does not match the shape of the indexed tensor",
      "invalid index of a 0-dim tensor",
      "tensors used as indices must be",
      "could not be broadcast together"};
  for (std::string_view s : kIndexMessages)
    if (msg.find(s) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void set_ember_error(const ember::Error& e) {
  PyErr_SetString(
      is_index_error(e.what_without_backtrace()) ? PyExc_IndexError : PyExc_RuntimeError, e.what());
}

void set_python_error(std::exception_ptr p) {
  try {
    std::rethrow_exception(p);
  } catch (const ember::Error& e) {
    set_ember_error(e);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "std::bad_alloc");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

void bind_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::Error& e) {
      set_ember_error(e);
    }
  });
}

}  // namespace ember::python
