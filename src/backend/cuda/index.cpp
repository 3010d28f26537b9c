// The host side of the CUDA advanced indexing: the kCUDA backend's index and index_put entries.
// Each plans its work (index_plan.cpp, tested in every build with the emulated kernels), queues
// the offsets (index.cu) on the current stream, reads the indices' records back to raise the CPU
// kernel's error before anything is read or written, then queues gather.cu's walk.
#include "backend/backend.h"
#include "backend/cuda/index_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void run(const char* name, kernels::GatherOp op, const Tensor& plain,
         const backend::AdvancedIndex& at) {
  const IndexWork w = plan_index(name, op, plain, at);
  const Device device = at.src.device();
  if (w.offsets_launch.count > 0) {
    launch_on(device, name, &kernels::launch_index_offsets, w.offsets_launch);
    const Tensor record = w.record.cpu();
    raise_bad_index_entry(record.data_ptr<int64_t>(), at);
  }
  if (w.walk.numel > 0) launch_on(device, name, &kernels::launch_gather, w.walk);
}

void index(const Tensor& out, const backend::AdvancedIndex& at) {
  run("index", kernels::GatherOp::gather, out, at);
}

void index_put(const backend::AdvancedIndex& at, const Tensor& value, bool accumulate) {
  run("index_put_", accumulate ? kernels::GatherOp::scatter_add : kernels::GatherOp::scatter, value,
      at);
}

}  // namespace

void install_index_kernels(backend::Backend& b) {
  b.index.index = &index;
  b.index.index_put = &index_put;
}

}  // namespace ember::cuda
