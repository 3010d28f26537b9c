// The host side of the CUDA sort family: the kCUDA backend's sort and topk entries (the stable
// sort serves both stable settings, Note [Bitonic sort of any length] in sort_body.cuh). Each
// plans its launch (sort_plan.cpp, tested in every build with the emulated kernel) and queues
// sort.cu's kernel on the current stream of self's device.
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/runtime.h"
#include "backend/cuda/sort_plan.h"

namespace ember::cuda {
namespace {

void queue(const char* op, const Tensor& self, const kernels::SortLaunch& l) {
  if (l.lines == 0) return;
  launch_on(self.device(), op, &kernels::launch_sort, l);
}

void sort(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim,
          bool descending, bool /*stable*/) {
  queue("sort", self, plan_sort_launch(values, indices, self, dim, descending));
}

void topk(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k, int64_t dim,
          bool largest, bool /*sorted*/) {
  const Tensor sorted = backend::new_buffer(self.sizes(), self.dtype(), self.device(), "topk");
  const Tensor order = backend::new_buffer(self.sizes(), kInt64, self.device(), "topk");
  queue("topk", self, plan_topk_launch(values, indices, self, k, dim, largest, sorted, order));
}

}  // namespace

void install_sort_kernels(backend::Backend& b) {
  b.sort.sort = &sort;
  b.sort.topk = &topk;
}

}  // namespace ember::cuda
