// The host side of the CUDA reductions: the kCUDA backend's sum, mean, amax, amin, nansum, prod,
// norm, aminmax and var (var, std and their _mean variants) entries.
// Each plans a kernels::ReduceLaunch (reduce_plan.cpp, tested in every build) and queues
// reduce.cu's kernels on the current stream of the input's device.
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/reduce_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using kernels::ReduceOp;

void queue(const char* op, const Tensor& in, kernels::ReduceLaunch l) {
  if (l.outputs == 0) return;
  // A split reduction's partial sums. Freed once queued: the caching allocator hands the block
  // out again only to work on this same stream, which runs after these kernels.
  Tensor partial;
  if (const int64_t bytes = reduce_partial_bytes(l)) {
    partial = backend::new_buffer({bytes}, kUInt8, in.device(), op);
    l.partial = partial.data_ptr();
  }
  launch_on(in.device(), op, &kernels::launch_reduce, l);
}

template <ReduceOp Op>
void run(const backend::ReduceCall& call) {
  queue(call.op, call.in, plan_reduce_launch(Op, call));
}

void var(const backend::MomentsCall& call) {
  const MomentsWork w = plan_moments(call);
  queue(call.op, call.in, w.mean);
  queue(call.op, call.in, w.var);
  if (w.mean_out && w.mean_out->numel > 0)
    launch_on(call.in.device(), call.op, &kernels::launch_copy, *w.mean_out);
}

void aminmax(const char* op, const Tensor& lo, const Tensor& hi, const Tensor& in,
             IntArrayRef dims) {
  const auto [min, max] = plan_aminmax_launches(op, lo, hi, in, dims);
  queue(op, in, min);
  queue(op, in, max);
}

}  // namespace

void install_reduce_kernels(backend::Backend& b) {
  b.reduce.sum = &run<ReduceOp::sum>;
  b.reduce.mean = &run<ReduceOp::mean>;
  b.reduce.amax = &run<ReduceOp::amax>;
  b.reduce.amin = &run<ReduceOp::amin>;
  b.reduce.nansum = &run<ReduceOp::nansum>;
  b.reduce.prod = &run<ReduceOp::prod>;
  b.reduce.norm = &run<ReduceOp::norm>;
  b.reduce.aminmax = &aminmax;
  b.reduce.var = &var;
}

}  // namespace ember::cuda
