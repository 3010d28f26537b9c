// The host side of the CUDA gather family: the kCUDA backend's gather, scatter, scatter_add,
// scatter_reduce, check_index, index_select, index_add_, index_copy_, index_fill_ and take entries
// and the embedding lookup and its backward. Each plans its launch (gather_plan.cpp, tested in
// every build with the emulated kernels), queues gather.cu's kernel on the current stream and reads
// the launch's bad-index record back (index_record.h) to raise the CPU kernels' error.
#include <array>
#include <cmath>

#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/gather_plan.h"
#include "backend/cuda/index_record.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using kernels::GatherOp;

/// Queues l (numel elements of work) with `launcher`, then returns `record` read back.
template <class L>
std::array<int64_t, 2> run(const char* op, const Tensor& record, const L& l, int64_t numel,
                           int (*launcher)(const L&, void*)) {
  if (numel == 0) return {0, 0};
  launch_on(record.device(), op, launcher, l);
  return read_index_record(record);
}

template <GatherOp Op>
void along_dim(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
               const Tensor& other) {
  const Tensor record = new_index_record(self.device());
  const kernels::GatherLaunch l =
      plan_gather_launch(Op, self, dim, index, other, record.data_ptr<int64_t>());
  raise_bad_index(op, run(op, record, l, l.numel, &kernels::launch_gather).data(), dim,
                  self.size(dim));
}

void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  along_dim<GatherOp::gather>("gather", self, dim, index, out);
}
void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  along_dim<GatherOp::scatter>("scatter", self, dim, index, src);
}
void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  along_dim<GatherOp::scatter_add>("scatter_add", self, dim, index, src);
}

// Note [CUDA scatter_reduce]
// prod, amax and amin are kernels of their own; sum and mean are scatter_add's. Without
// include_self the written positions first take the reduction's identity (a scatter of it); mean
// then divides by each position's count (a scatter_add of ones, self counting once when
// included), positions never written keeping their value (count 0 taken as 1), as the CPU's.
// The plan takes floating dtypes only, so the division is a true one.
void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    backend::ScatterReduce reduce, bool include_self) {
  using R = backend::ScatterReduce;
  const char* op = "scatter_reduce";
  const Dtype dtype = self.dtype();
  const Device device = self.device();
  const GatherOp kind = reduce == R::Prod   ? GatherOp::scatter_prod
                        : reduce == R::Amax ? GatherOp::scatter_amax
                        : reduce == R::Amin ? GatherOp::scatter_amin
                                            : GatherOp::scatter_add;
  const Tensor record = new_index_record(self.device());
  // Planned first: it refuses a dtype without a kernel before anything is written.
  const kernels::GatherLaunch l =
      plan_gather_launch(kind, self, dim, index, src, record.data_ptr<int64_t>());
  if (!include_self) {
    const double identity = reduce == R::Prod   ? 1.0
                            : reduce == R::Amax ? -INFINITY
                            : reduce == R::Amin ? INFINITY
                                                : 0.0;
    along_dim<GatherOp::scatter>(
        op, self, dim, index, backend::new_full({}, identity, dtype, device).expand(index.sizes()));
  }
  raise_bad_index(op, run(op, record, l, l.numel, &kernels::launch_gather).data(), dim,
                  self.size(dim));
  if (reduce != R::Mean) return;
  const Tensor one = backend::new_full({}, 1, dtype, device);
  const Tensor count = include_self ? backend::new_full(self.sizes(), 1, dtype, device)
                                    : backend::new_zeros(self.sizes(), dtype, device);
  along_dim<GatherOp::scatter_add>(op, count, dim, index, one.expand(index.sizes()));
  Tensor out = self;  // a handle: the division writes self's elements
  out.div_(count.maximum(one));
}

template <GatherOp Op>
void into_slices(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                 const Tensor& source, double alpha) {
  const Tensor record = new_index_record(self.device());
  const kernels::GatherLaunch l =
      plan_index_scatter_launch(Op, self, dim, index, source, alpha, record.data_ptr<int64_t>());
  raise_bad_index(op, run(op, record, l, l.numel, &kernels::launch_gather).data(), dim, l.size);
}

void index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
               Scalar alpha) {
  into_slices<GatherOp::scatter_add>("index_add_", self, dim, index, source, alpha.to_double());
}
void index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  into_slices<GatherOp::scatter>("index_copy_", self, dim, index, source, 1);
}
void index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  DimVector shape(self.sizes());
  if (!shape.empty()) shape[size_t(dim)] = index.numel();
  const Tensor fill = backend::new_full({}, value, self.dtype(), self.device());
  into_slices<GatherOp::scatter>("index_fill_", self, dim, index, fill.expand(shape), 1);
}

void check_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool wrap) {
  const Tensor record = new_index_record(index.device());
  const kernels::CheckIndexLaunch l =
      plan_check_index_launch(index, size, wrap, record.data_ptr<int64_t>());
  raise_bad_index(op, run(op, record, l, l.numel, &kernels::launch_check_index).data(), dim, size);
}

void index_select(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  const Tensor record = new_index_record(self.device());
  const kernels::SelectLaunch l =
      plan_index_select_launch(out, self, dim, index, record.data_ptr<int64_t>());
  raise_bad_index("index_select",
                  run("index_select", record, l, l.numel, &kernels::launch_select).data(), dim,
                  l.size);
}

void take(const Tensor& out, const Tensor& self, const Tensor& index) {
  const Tensor record = new_index_record(self.device());
  const kernels::SelectLaunch l = plan_take_launch(out, self, index, record.data_ptr<int64_t>());
  const auto bad = run("take", record, l, l.numel, &kernels::launch_select);
  EMBER_CHECK(bad[0] == 0, "take", "out of range: tried to access index ", bad[1],
              " on a tensor of ", self.numel(), " elements.");
}

void embedding(const char* op, const Tensor& out, const Tensor& weight, const Tensor& indices) {
  const Tensor record = new_index_record(weight.device());
  const kernels::SelectLaunch l =
      plan_embedding_launch(out, weight, indices, record.data_ptr<int64_t>());
  EMBER_CHECK(run(op, record, l, l.numel, &kernels::launch_select)[0] == 0, op,
              "index out of range in self");
}

void embedding_backward(const char* op, const Tensor& grad_weight, const Tensor& grad,
                        const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq) {
  const Tensor record = new_index_record(grad_weight.device());
  const Tensor counts =
      scale_grad_by_freq ? backend::new_zeros({grad_weight.size(0)}, kInt64, grad_weight.device())
                         : Tensor();
  const auto [check, add] = plan_embedding_backward_launches(
      grad_weight, grad, indices, padding_idx,
      counts.defined() ? counts.data_ptr<int64_t>() : nullptr, record.data_ptr<int64_t>());
  if (check.numel == 0) return;
  launch_on(grad_weight.device(), op, &kernels::launch_check_index, check);
  EMBER_CHECK(run(op, record, add, add.numel, &kernels::launch_gather)[0] == 0, op,
              "index out of range in self");
}

}  // namespace

void install_gather_kernels(backend::Backend& b) {
  b.gather.gather = &gather;
  b.gather.scatter = &scatter;
  b.gather.scatter_add = &scatter_add;
  b.gather.scatter_reduce = &scatter_reduce;
  b.gather.check_index = &check_index;
  b.gather.index_select = &index_select;
  b.gather.index_add = &index_add;
  b.gather.index_copy = &index_copy;
  b.gather.index_fill = &index_fill;
  b.gather.take = &take;
  b.embedding.embedding = &embedding;
  b.embedding.embedding_backward = &embedding_backward;
}

}  // namespace ember::cuda
