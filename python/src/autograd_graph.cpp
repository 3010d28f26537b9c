// torch.autograd.graph's hooks from Python: saved_tensors_hooks regions (pack/unpack around every
// tensor autograd saves), and the engine's final callbacks and "is a backward running" query
// that FullyShardedDataParallel needs (PyTorch's Variable._execution_engine.queue_callback).
// Hooks run on the thread that computes: the forward's op for pack, the backward for unpack and
// the callbacks; each call takes the GIL, since the engine runs without it.
#include <memory>
#include <vector>

#include "autograd/final_callbacks.h"
#include "common.h"

namespace ember::python {
namespace {

// The regions this thread's Python code opened, innermost last; the C++ side keeps its own
// stack in step (both are LIFO, and C++ regions inside are scoped).
thread_local std::vector<std::unique_ptr<autograd::graph::saved_tensors_hooks>> open_regions;

void push_saved_tensors_hooks(py::object pack, py::object unpack) {
  if (!PyCallable_Check(pack.ptr()) || !PyCallable_Check(unpack.ptr()))
    throw py::type_error("saved_tensors_hooks(): pack_hook and unpack_hook must be callables");
  GilObject pack_fn(pack), unpack_fn(unpack);
  auto on_pack = [pack_fn](const Tensor& t) -> std::any {
    py::gil_scoped_acquire gil;
    return GilObject(pack_fn.get()(wrap(t)));
  };
  auto on_unpack = [unpack_fn](const std::any& packed) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = unpack_fn.get()(std::any_cast<const GilObject&>(packed).get());
    if (!is_tensor(r))
      throw py::type_error(
          "Output of saved tensor unpack_hook expected to be a Tensor but got result of type " +
          std::string(Py_TYPE(r.ptr())->tp_name));
    return unwrap(r);
  };
  open_regions.push_back(
      std::make_unique<autograd::graph::saved_tensors_hooks>(on_pack, on_unpack));
}

void pop_saved_tensors_hooks() {
  if (open_regions.empty())
    throw std::runtime_error(
        "saved_tensors_hooks: no region is open on this thread (an __exit__ without __enter__)");
  open_regions.pop_back();
}

}  // namespace

void bind_autograd_graph(py::module_& m) {
  m.def("_push_saved_tensors_hooks", &push_saved_tensors_hooks, py::arg("pack_hook"),
        py::arg("unpack_hook"));
  m.def("_pop_saved_tensors_hooks", &pop_saved_tensors_hooks);
  m.def("_queue_callback", [](py::object fn) {
    GilObject callback(fn);
    autograd::queue_callback([callback] {
      py::gil_scoped_acquire gil;
      callback.get()();
    });
  });
  m.def("_is_running_backward", &autograd::is_running_backward);
}

}  // namespace ember::python
