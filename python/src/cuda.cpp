// torch.cuda's streams over ember::cuda (include/ember/cuda.h): _C._CudaStream (ember.cuda.Stream),
// current_stream / default_stream, and the guard behind ember.cuda.stream(s) (python/ember/cuda.py).
// In a build without CUDA each of them raises the library's "built without CUDA support" error,
// naming the call, as a RuntimeError (PyTorch's CPU-only build raises on first use too).
#include <optional>
#include <sstream>

#include "common.h"
#include "context_guard.h"
#include "ember/cuda.h"

namespace ember::python {
namespace {

/// A CUDA device from a Python device argument (None: the current device), as PyTorch's
/// _get_device_index: `ValueError: Expected a cuda device, but got: cpu` for another type.
Device cuda_device(py::handle h, const char* op) {
  const std::optional<Device> d = to_optional_device(h, op);
  if (!d) return Device(kCUDA);
  if (!d->is_cuda()) throw py::value_error("Expected a cuda device, but got: " + d->str());
  return *d;
}

/// torch.cuda.stream(s)'s guard: the stream current from enter() to exit().
using PyStreamGuard = ContextGuard<cuda::StreamGuard, cuda::Stream>;

}  // namespace

void bind_cuda(py::module_& m) {
  py::class_<cuda::Stream>(m, "_CudaStream")
      .def(py::init([](py::object device, int64_t priority) {
             // ember's streams come from one pool of one priority (cuda.h): no other is taken.
             if (priority != 0)
               throw py::value_error("torch.cuda.Stream: ember's streams have the default "
                                     "priority 0 only, got " + std::to_string(priority));
             return cuda::Stream(cuda_device(device, "Stream"));
           }),
           py::arg("device") = py::none(), py::arg("priority") = 0)
      .def_property_readonly("device", [](const cuda::Stream& s) { return device_object(s.device()); })
      .def_property_readonly("cuda_stream",
                             [](const cuda::Stream& s) { return reinterpret_cast<uintptr_t>(s.handle()); })
      .def("query", &cuda::Stream::query)
      .def("synchronize", &cuda::Stream::synchronize, py::call_guard<py::gil_scoped_release>())
      .def("wait_stream", &cuda::Stream::wait_stream, py::arg("stream"))
      .def("__eq__", [](const cuda::Stream& a, py::object b) {
        return py::isinstance<cuda::Stream>(b) && a == b.cast<const cuda::Stream&>();
      })
      .def("__hash__", [](const cuda::Stream& s) {
        return py::hash(py::make_tuple(s.device().index(), reinterpret_cast<uintptr_t>(s.handle())));
      })
      .def("__repr__", [](const cuda::Stream& s) {
        std::ostringstream os;
        os << "<torch.cuda.Stream device=" << s.device().str() << " cuda_stream=0x" << std::hex
           << reinterpret_cast<uintptr_t>(s.handle()) << ">";
        return os.str();
      });
  m.def(
      "_cuda_current_stream",
      [](py::object device) { return cuda::current_stream(cuda_device(device, "current_stream")); },
      py::arg("device") = py::none());
  m.def(
      "_cuda_default_stream",
      [](py::object device) {
        return cuda::Stream::default_stream(cuda_device(device, "default_stream"));
      },
      py::arg("device") = py::none());
  py::class_<PyStreamGuard>(m, "_CudaStreamGuard")
      .def(py::init<cuda::Stream>(), py::arg("stream"))
      .def("enter", &PyStreamGuard::enter)
      .def("exit", &PyStreamGuard::exit);
}

}  // namespace ember::python
