// ember._C: the extension module under the `ember` Python package. Each binding file adds its
// concept; ember/__init__.py re-exports what users call.
#include "common.h"

namespace ember::python {
void bind_factory_methods(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);
}

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "ember's C++ core";
  bind_errors(m);
  bind_types(m);
  bind_tensor(m);
  bind_factories(m);
  bind_serialize(m);
  bind_nn_functional(m);
  bind_optim(m);
  bind_amp(m);
  bind_profiler(m);
}
