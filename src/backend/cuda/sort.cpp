// The host side of the CUDA sort family: the kCUDA backend's sort, topk, kthvalue, median
// (nanmedian, and of all elements) and mode entries, all one sorting kernel (the stable sort
// serves both stable settings, Note [Bitonic sort of any length] in sort_body.cuh; the
// selections pick from the sorted lines, sort_launch.h's Pick). Each
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

// A selection over self's lines (dim >= 0) or all its elements (dim = -1), through scratch
// sorted copies.
void select(const char* op, kernels::Pick pick, const Tensor& values, const Tensor& indices,
            const Tensor& self, int64_t dim, int64_t kth = 0) {
  const Tensor sorted = backend::new_buffer(self.sizes(), self.dtype(), self.device(), op);
  const Tensor order = backend::new_buffer(self.sizes(), kInt64, self.device(), op);
  queue(op, self, plan_select_launch(op, pick, values, indices, self, dim, kth, sorted, order));
}

void kthvalue(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t k,
              int64_t dim) {
  select("kthvalue", kernels::Pick::kth, values, indices, self, dim, k);
}

void median(const char* op, const Tensor& values, const Tensor& indices, const Tensor& self,
            int64_t dim, bool ignore_nan) {
  select(op, ignore_nan ? kernels::Pick::nanmedian : kernels::Pick::median, values, indices, self,
         dim);
}

void median_all(const char* op, const Tensor& out, const Tensor& self, bool ignore_nan) {
  select(op, ignore_nan ? kernels::Pick::nanmedian : kernels::Pick::median, out, Tensor(), self,
         -1);
}

void mode(const Tensor& values, const Tensor& indices, const Tensor& self, int64_t dim) {
  select("mode", kernels::Pick::mode, values, indices, self, dim);
}

}  // namespace

void install_sort_kernels(backend::Backend& b) {
  b.sort.sort = &sort;
  b.sort.topk = &topk;
  b.sort.kthvalue = &kthvalue;
  b.sort.median = &median;
  b.sort.median_all = &median_all;
  b.sort.mode = &mode;
}

}  // namespace ember::cuda
