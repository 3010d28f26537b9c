// ember::Error as the exception class PyTorch raises for the same mistake: IndexError for indices
// and dims out of range, RuntimeError for the rest (shapes, dtypes, devices, autograd), with
// ember's message ("[op] what was expected, what was given").
#include <string_view>

#include "common.h"

namespace ember::python {
namespace {

bool is_index_error(std::string_view msg) {
  static constexpr std::string_view kIndexMessages[] = {
      "out of bounds for dimension", "imension out of range", "too many indices",
      "index out of range", "does not match the shape of the indexed tensor",
      "invalid index of a 0-dim tensor"};
  for (std::string_view s : kIndexMessages)
    if (msg.find(s) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void bind_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::Error& e) {
      std::string_view msg = e.what();
      PyErr_SetString(is_index_error(e.what_without_backtrace()) ? PyExc_IndexError : PyExc_RuntimeError,
                      std::string(msg).c_str());
    }
  });
}

}  // namespace ember::python
