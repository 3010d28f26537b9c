// The host side of the CUDA creation family: the kCUDA backend's arange, linspace and logspace
// entries (zeros is the copy family's, copy.cpp). Each plans its launch (creation_plan.cpp,
// tested in every build with the emulated kernel against the CPU's) and queues it on the current
// stream of the tensor's device; a one-step linspace is a fill of start, as on the CPU.
#include "backend/backend.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/creation_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void arange(const Tensor& t, Scalar start, Scalar step) {
  const kernels::RangeLaunch l = plan_arange_launch(t, start, step);
  if (l.n > 0) launch_on(t.device(), "arange", &kernels::launch_range, l);
}

void linspace(const Tensor& t, Scalar start, Scalar end) {
  if (t.numel() == 1) {
    launch_on(t.device(), "linspace", &kernels::launch_fill, plan_fill_launch(t, start));
    return;
  }
  if (t.numel() == 0) return;
  launch_on(t.device(), "linspace", &kernels::launch_range, plan_linspace_launch(t, start, end));
}

void logspace(const Tensor& t, const Tensor& exponents, double base) {
  const kernels::RangeLaunch l = plan_logspace_launch(t, exponents, base);
  if (l.n > 0) launch_on(t.device(), "logspace", &kernels::launch_range, l);
}

}  // namespace

void install_creation_kernels(backend::Backend& b) {
  b.creation.arange = &arange;
  b.creation.linspace = &linspace;
  b.creation.logspace = &logspace;
}

}  // namespace ember::cuda
