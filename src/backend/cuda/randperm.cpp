// The host side of the CUDA randperm: the kCUDA backend's randperm entry. It plans the work
// (randperm_plan.cpp, tested in every build with the emulated kernels and sort) with the grid
// PyTorch's random_ takes on this device and the device's default Philox generator, then queues
// each step on the current stream: the keys' random fill (random.cu), the iota, cub's sort with
// its scratch, the islands (randperm.cu) and the copy to the result's dtype (copy.cu).
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/randperm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void randperm(const Tensor& t, Generator* gen) {
  const char* op = "randperm";
  if (t.numel() == 0) return;  // nothing drawn, as PyTorch returns before its keys
  const RandomTarget target = random_target(op, t.device(), gen);
  RandpermWork w = plan_randperm(t, target.gen, target.max_blocks);
  const Device device = t.device();
  launch_on(device, op, &kernels::launch_random, w.fill_keys);
  launch_on(device, op, &kernels::launch_randperm, w.fill_iota);
  size_t bytes = 0;
  check(cudaError_t(kernels::randperm_sort_scratch(w.sort, &bytes)), op,
        " sizing cub's radix sort of ", t.numel(), " keys");
  const Tensor scratch = backend::new_buffer({int64_t(bytes > 0 ? bytes : 1)}, kUInt8, device, op);
  w.sort.scratch = scratch.data_ptr();
  w.sort.scratch_bytes = bytes;
  launch_on(device, op, &kernels::launch_randperm_sort, w.sort);
  launch_on(device, op, &kernels::launch_randperm, w.islands);
  if (w.copy_out) launch_on(device, op, &kernels::launch_copy, *w.copy_out);
}

}  // namespace

void install_randperm_kernels(backend::Backend& b) { b.random.randperm = &randperm; }

}  // namespace ember::cuda
