// The host side of the CUDA pooling: the kCUDA backend's max_pool2d, adaptive_max_pool2d,
// max_pool_backward, avg_pool2d, adaptive_avg_pool2d and their backward entries. Each plans its
// launch (pool_plan.cpp, tested in every build with the emulated kernels) and queues it on the
// current stream of the planes' device; max_pool's backward zeroes grad_input, scatter_adds grad at
// the indices (gather.cu's kernel: overlapping windows add atomically) and reads the launch's
// bad-index record back (index_record.h).
#include "backend/backend.h"
#include "backend/cuda/index_record.h"
#include "backend/cuda/pool_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices,
                const backend::Pool2dParams& p) {
  const kernels::MaxPoolLaunch l = plan_max_pool_launch(input, out, indices, p);
  if (out.numel() == 0) return;
  launch_on(input.device(), "max_pool2d", &kernels::launch_max_pool, l);
}

void adaptive_max_pool2d(const Tensor& input, const Tensor& out, const Tensor& indices) {
  const kernels::MaxPoolLaunch l = plan_max_pool_launch(input, out, indices, {}, true);
  if (out.numel() > 0)
    launch_on(input.device(), "adaptive_max_pool2d", &kernels::launch_max_pool, l);
}

void max_pool_backward(const Tensor& grad, const Tensor& indices, const Tensor& grad_input) {
  const char* op = "max_pool2d_backward";
  Tensor gi = grad_input;  // a handle: zeroed in place
  gi.zero_();
  const Tensor record = new_index_record(grad_input.device());
  const kernels::GatherLaunch l =
      plan_max_pool_backward_launch(grad, indices, grad_input, record.data_ptr<int64_t>());
  if (l.numel == 0) return;
  launch_on(grad.device(), op, &kernels::launch_gather, l);
  EMBER_CHECK(read_index_record(record)[0] == 0, op, "found an index outside the input plane of ",
              l.size, " elements");
}

void avg(const char* op, const Tensor& planes, const Tensor& out, const backend::Pool2dParams& p,
         bool count_include_pad, int64_t divisor, bool adaptive, bool backward) {
  const kernels::AvgPoolLaunch l =
      plan_avg_pool_launch(planes, out, p, count_include_pad, divisor, adaptive, backward);
  if (out.numel() > 0) launch_on(out.device(), op, &kernels::launch_avg_pool, l);
}

void avg_pool2d(const Tensor& input, const Tensor& out, const backend::Pool2dParams& p,
                bool count_include_pad, int64_t divisor) {
  avg("avg_pool2d", input, out, p, count_include_pad, divisor, false, false);
}
void avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input,
                         const backend::Pool2dParams& p, bool count_include_pad, int64_t divisor) {
  avg("avg_pool2d_backward", grad, grad_input, p, count_include_pad, divisor, false, true);
}
void adaptive_avg_pool2d(const Tensor& input, const Tensor& out) {
  avg("adaptive_avg_pool2d", input, out, {}, false, 0, true, false);
}
void adaptive_avg_pool2d_backward(const Tensor& grad, const Tensor& grad_input) {
  avg("adaptive_avg_pool2d_backward", grad, grad_input, {}, false, 0, true, true);
}

}  // namespace

void install_pool_kernels(backend::Backend& b) {
  b.pool.max_pool2d = &max_pool2d;
  b.pool.adaptive_max_pool2d = &adaptive_max_pool2d;
  b.pool.max_pool_backward = &max_pool_backward;
  b.pool.avg_pool2d = &avg_pool2d;
  b.pool.avg_pool2d_backward = &avg_pool2d_backward;
  b.pool.adaptive_avg_pool2d = &adaptive_avg_pool2d;
  b.pool.adaptive_avg_pool2d_backward = &adaptive_avg_pool2d_backward;
}

}  // namespace ember::cuda
