// ember.utils.checkpoint's C++ side (ember._C._checkpoint): a Python function run under the C++
// side's non-reentrant activation checkpoint (ember/utils/checkpoint.h), which keeps none of the
// tensors the function's graph saves and recomputes them when the backward needs one.
//
// The function runs again inside backward, on whichever thread runs the autograd engine and
// without the GIL there, so it is held as a GilObject (the graph that owns it may be freed on
// that thread too) and called with the GIL taken. Its results stay in Python: the C++ side keeps
// nothing from them, so the Python wrapper (ember/utils/checkpoint.py) takes the forward's
// return value as it is (tensors, tuples, non-tensors) and the recompute's is dropped.
#include "common.h"
#include "ember/utils/checkpoint.h"

namespace ember::python {

void bind_activation_checkpoint(py::module_& m) {
  m.def(
      "_checkpoint",
      [](py::object fn, py::handle inputs, bool preserve_rng_state) {
        const std::vector<Tensor> tensors = to_tensor_list(inputs, "checkpoint", "inputs");
        const GilObject held(std::move(fn));
        const utils::CheckpointFunction run = [held](const std::vector<Tensor>& xs) {
          py::gil_scoped_acquire gil;
          py::tuple args(xs.size());
          for (size_t i = 0; i < xs.size(); ++i) args[i] = wrap(xs[i]);
          held.get()(*args);
          return std::vector<Tensor>{};
        };
        utils::checkpoint(run, tensors, {.preserve_rng_state = preserve_rng_state});
      },
      py::arg("function"), py::arg("inputs"), py::arg("preserve_rng_state"));
}

}  // namespace ember::python
