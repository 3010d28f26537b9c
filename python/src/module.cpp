// ember._C: the extension module under the `ember` Python package. Each binding file adds its
// concept; ember/__init__.py re-exports what users call.
#include <pthread.h>

#include "common.h"

namespace ember::python {
void bind_factory_methods(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls);
void bind_cuda(py::module_& m);  // cuda.cpp
}

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "ember's C++ core";
  // A process forked from Python (multiprocessing, DataLoader workers) inherits libgomp's pool
  // in a state it cannot use: a parallel region in the child waits forever for threads that were
  // not forked. The child computes on one thread, as PyTorch's workers do (set_num_threads(1));
  // it may raise the count again itself.
  pthread_atfork(nullptr, nullptr, [] { ember::set_num_threads(1); });
  bind_errors(m);
  bind_types(m);
  bind_tensor(m);
  bind_factories(m);
  bind_autograd_graph(m);
  bind_serialize(m);
  bind_nn_functional(m);
  bind_nn_rnn(m);
  bind_optim(m);
  bind_amp(m);
  bind_profiler(m);
  bind_distributed(m);
  bind_distributed_checkpoint(m);
  bind_activation_checkpoint(m);
  bind_cuda(m);
}
