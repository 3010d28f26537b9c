// See reduce_plan.h.
#include "backend/cuda/reduce_plan.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"

namespace ember::cuda {
namespace {

// The storage type of the input, and whether the output holds int64 instead: sums and products
// of int32 and bool promote to int64 (the front end's output dtype, PyTorch's rule); amax/amin
// (and any/all over bool) keep the input's type. The integer types take only these four ops.
kernels::Type reduce_type(kernels::ReduceOp op, const backend::ReduceCall& call,
                          int32_t& int64_out) {
  const Dtype in = call.in.dtype(), out = call.out.dtype();
  const bool integral = in == kInt32 || in == kInt64 || in == kBool;
  const bool promotes = op == kernels::ReduceOp::sum || op == kernels::ReduceOp::prod;
  int64_out = integral && promotes && out == kInt64 && in != kInt64;
  EMBER_CHECK(out == in || int64_out, call.op, "the cuda backend reduces into the input's dtype",
              " (int64 for sums and products of integers), got ", in, " into ", out);
  switch (in) {
    case kFloat32: return kernels::Type::float32;
    case kFloat64: return kernels::Type::float64;
    case kFloat16: return kernels::Type::float16;
    case kBFloat16: return kernels::Type::bfloat16;
    default: break;
  }
  const bool integer_op = promotes || op == kernels::ReduceOp::amax ||
                          op == kernels::ReduceOp::amin;
  if (integral && integer_op)
    return in == kInt32 ? kernels::Type::int32 : in == kInt64 ? kernels::Type::int64
                                                              : kernels::Type::boolean;
  fail(call.op, "the cuda backend has no ", dtype_name(in), " kernel yet (", call.op, " on ",
       call.in.device(), " takes float32, float64, float16 or bfloat16",
       integer_op ? ", int32, int64 or bool)" : ")");
}

// The dims `pick` of `in` in order, size-1 ones dropped and each merged into its predecessor
// when the two are contiguous in the input (then one index walks both); byte strides.
struct Space {
  int ndim = 0;
  int64_t numel = 1;
  int64_t shape[kernels::kMaxDims];
  int64_t strides[kernels::kMaxDims];
};

template <class Pick>
Space plan_space(const backend::ReduceCall& call, Pick pick, const char* which) {
  Space s;
  const int64_t item = call.in.element_size();
  DimVector shape, strides;
  for (int64_t d = 0; d < call.in.dim(); ++d) {
    if (!pick(d)) continue;
    const int64_t size = call.in.sizes()[d], stride = call.in.strides()[d] * item;
    s.numel *= size;
    if (size == 1) continue;
    if (!shape.empty() && strides.back() == stride * size) {
      shape.back() *= size;
      strides.back() = stride;
    } else {
      shape.push_back(size);
      strides.push_back(stride);
    }
  }
  EMBER_CHECK(int64_t(shape.size()) <= kernels::kMaxDims, call.op, "the cuda backend's ",
              "reductions take at most ", kernels::kMaxDims, " ", which,
              " dimensions that cannot be merged, got ", shape.size(), " (shape ",
              call.in.sizes(), ", dims ", call.dims, ")");
  s.ndim = int(shape.size());
  std::copy(shape.begin(), shape.end(), s.shape);
  std::copy(strides.begin(), strides.end(), s.strides);
  return s;
}

}  // namespace

uint32_t block_threads(int64_t n, uint32_t most) {
  return uint32_t(std::clamp<int64_t>((n + 31) / 32 * 32, 32, most));
}

kernels::ReduceLaunch plan_reduce_launch(kernels::ReduceOp op, const backend::ReduceCall& call) {
  kernels::ReduceLaunch l{};
  l.op = op;
  l.type = reduce_type(op, call, l.int64_out);
  const auto reduced = [&](int64_t d) {
    return std::find(call.dims.begin(), call.dims.end(), d) != call.dims.end();
  };
  const Space kept = plan_space(call, [&](int64_t d) { return !reduced(d); }, "kept");
  const Space red = plan_space(call, reduced, "reduced");
  l.outputs = kept.numel;
  l.reduced = red.numel;
  l.kept_ndim = kept.ndim;
  l.reduced_ndim = red.ndim;
  std::copy(kept.shape, kept.shape + kept.ndim, l.kept_shape);
  std::copy(kept.strides, kept.strides + kept.ndim, l.kept_strides);
  std::copy(red.shape, red.shape + red.ndim, l.reduced_shape);
  std::copy(red.strides, red.strides + red.ndim, l.reduced_strides);
  l.in = static_cast<const char*>(call.in.data_ptr());
  l.out = static_cast<char*>(call.out.data_ptr());
  l.divisor = call.arg;
  l.p = call.arg;
  l.blocks = uint32_t(std::clamp<int64_t>(l.outputs, 1, 65536));
  // Few outputs over many elements: split each output's elements over more blocks.
  int64_t splits = 1;
  if (l.outputs < kReduceTargetBlocks && l.reduced > kReduceMinChunk)
    splits = std::min((kReduceTargetBlocks + l.outputs - 1) / l.outputs,
                      (l.reduced + kReduceMinChunk - 1) / kReduceMinChunk);
  l.chunk = (l.reduced + splits - 1) / splits;
  l.splits = uint32_t(l.chunk ? (l.reduced + l.chunk - 1) / l.chunk : 1);
  l.threads = block_threads(l.chunk, kReduceThreads);
  return l;
}

std::pair<kernels::ReduceLaunch, kernels::ReduceLaunch> plan_aminmax_launches(
    const char* op, const Tensor& lo, const Tensor& hi, const Tensor& in, IntArrayRef dims) {
  return {plan_reduce_launch(kernels::ReduceOp::amin, {op, lo, in, dims}),
          plan_reduce_launch(kernels::ReduceOp::amax, {op, hi, in, dims})};
}

MomentsWork plan_moments(const backend::MomentsCall& c) {
  MomentsWork w{};
  const Dtype acc = c.in.dtype() == kFloat64 ? kFloat64 : kFloat32;
  w.center = backend::new_buffer(c.var.sizes(), acc, c.in.device(), c.op);
  int64_t n = 1;
  for (const int64_t d : c.dims) n *= c.in.size(d);
  // The mean pass plans over var (the input's dtype, the outputs' shape), then writes center.
  w.mean = plan_reduce_launch(kernels::ReduceOp::mean, {c.op, c.var, c.in, c.dims, double(n)});
  w.mean.out = static_cast<char*>(w.center.data_ptr());
  w.mean.acc_out = 1;
  w.var = plan_reduce_launch(kernels::ReduceOp::var, {c.op, c.var, c.in, c.dims});
  w.var.divisor = std::max<double>(0, double(n) - double(c.correction));
  w.var.take_sqrt = c.take_sqrt;
  w.var.center = w.center.data_ptr();
  if (c.mean.defined()) w.mean_out = plan_copy_launch(c.mean, w.center);
  return w;
}

int64_t reduce_partial_bytes(const kernels::ReduceLaunch& l) {
  if (l.splits <= 1) return 0;
  const bool wide = l.type == kernels::Type::float64 || l.type == kernels::Type::int32 ||
                    l.type == kernels::Type::int64 || l.type == kernels::Type::boolean;
  const int64_t acc = wide ? 8 : 4;  // double, or int64 for the integers
  return l.outputs * int64_t(l.splits) * acc;
}

}  // namespace ember::cuda
