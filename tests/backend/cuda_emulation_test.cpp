// The CUDA kernels' bodies (src/backend/cuda/*_body.cuh) run by their CPU emulation
// (src/backend/cuda/emulation.h) over launches planned as the device's are, against the CPU
// backend, without a GPU: every elementwise kernel of the cuda table in every dtype it takes,
// strided, broadcast and transposed operands and outputs, tails and grids smaller than the work, the reductions (their
// combine tree, accumulation and split pass), softmax and its backwards
// (also through the front end on a fake device), every fused optimizer update (SGD, Adam/AdamW,
// Adamax, NAdam, RAdam, RMSprop, Adagrad) and GradScaler's inf/NaN check and unscale (also through
// GradScaler on a fake device). Copies between every pair of dtypes, fills
// and more reduction layouts run emulated in cuda_copy_plan_test / cuda_reduce_plan_test; the other
// families in their own cuda_<family>_plan_test (gather, norm, batch_norm, loss, sort, scan,
// pool).
#include <ember/amp/grad_scaler.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/amp.h"
#include "backend/cuda/amp_plan.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_body.cuh"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/optim_plan.h"
#include "backend/cuda/reduce_plan.h"
#include "backend/cuda/softmax_plan.h"
#include "backend/fake_device.h"
#include "cuda/elementwise_cases.h"
#include "ops/op_table.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseArgs;
using kernels::ReduceOp;

constexpr Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

/// The spacing of `dtype`'s values at 1 (machine epsilon).
double eps(Dtype dtype) {
  switch (dtype) {
    case kFloat64:
      return std::numeric_limits<double>::epsilon();
    case kFloat16:
      return 0x1p-10;
    case kBFloat16:
      return 0x1p-7;
    default:
      return std::numeric_limits<float>::epsilon();
  }
}

/// (rows, cols) values in [-3, 3] that repeat rarely, as `dtype`.
Tensor wavy(int64_t rows, int64_t cols, Dtype dtype, double phase = 0) {
  return ((arange(rows * cols, {.dtype = kFloat64}) * 0.37 + phase).sin() * 3)
      .reshape({rows, cols})
      .to(dtype);
}

// ── elementwise ─────────────────────────────────────────────────────────────────────────────

using K = backend::ElementwiseKernel;

// The dtypes the cuda kernels store, in kernels::Type's order.
constexpr Dtype kCudaDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool};

/// One comparison of a kernel of the cuda table with the CPU backend's entry (the tolerances:
/// test::KernelCase in ops/op_table.h).
using ElementwiseCase = test::KernelCase;
using test::reals;

/// Every op table row's kernel samples (ops/op_table.h), and the kernels without a row of the
/// elementwise table: threshold_backward (relu's backward) and the pointwise losses.
const std::vector<ElementwiseCase>& elementwise_cases() {
  static const std::vector<ElementwiseCase> cases = [] {
    std::vector<ElementwiseCase> all = test::kernel_cases();
    all.insert(all.end(), {
        {K::threshold_backward, "aa", 0, reals(0.5)},
        {K::mse_loss, "aa", 0},
        {K::smooth_l1_loss, "aa", 0, reals(1)},
        {K::huber_loss, "aa", 0, reals(1)},
        {K::binary_cross_entropy, "uu", 2},
        {K::binary_cross_entropy_with_logits, "au", 4},
        {K::binary_cross_entropy_with_logits_weighted, "aup", 4},
    });
    return all;
  }();
  return cases;
}

/// Input k of a case, (7, 150) values of `dtype` by its letter: a any ([-3, 3]; integers
/// [-30, 30]), s any with NaN, ±inf and ±0 in columns 3 to 7 (floating types), h any in
/// halves (round's ties, both parities), p positive, u in (0.05, 0.95), n non-zero (divisors),
/// e small integers [-3, 3] (exponents), b 0 or 1, c close to input 0 (isclose), x the case's
/// exponent (pow_scalar's second operand). bool takes each as its values' truth.
Tensor elementwise_input(const ElementwiseCase& c, int k, Dtype dtype, const Tensor& first) {
  const char letter = c.inputs[k];
  const bool floating = is_floating_point(dtype);
  const Tensor w = wavy(7, 150, kFloat64, 0.7 * k + 0.3);
  const Tensor ints = (w * 10).round();
  Tensor v;
  switch (letter) {
    case 'p': v = floating ? w.abs() + 0.1 : ints.abs() + 1; break;
    case 'u': v = w * (0.45 / 3) + 0.5; break;
    case 'n': v = floating ? w : ints + (ints >= 0).to(kFloat64) * 2 - 1; break;
    case 'e': v = w.round(); break;
    case 'b': v = (w > 0).to(kFloat64); break;
    case 'h': v = floating ? (w * 4).round() / 2 : ints; break;
    case 'c': v = first.to(kFloat64) + (floating ? w * 1e-3 : (w > 2.5).to(kFloat64)); break;
    case 'x': v = full({7, 150}, c.args.real[0], {.dtype = kFloat64}); break;
    default: v = floating ? w : ints; break;
  }
  if (letter == 's' && floating) {
    v.select(1, 3).fill_(NAN);
    v.select(1, 4).fill_(INFINITY);
    v.select(1, 5).fill_(-INFINITY);
    v.select(1, 6).fill_(-0.0);
    v.select(1, 7).fill_(0.0);
  }
  return dtype == kBool ? (letter == 'p' || letter == 'n' ? v != 0 : v > 0) : v.to(dtype);
}

// The strided operands: the first transposed (strides (1, 7)), the second a broadcast row
// (strides (0, 1)), the third a broadcast column (strides (1, 0)).
std::vector<Tensor> strided_operands(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (size_t k = 0; k < in.size(); ++k) {
    const Tensor& x = in[k];
    out.push_back(k == 0   ? x.t().contiguous().t()
                  : k == 1 ? x.select(0, 2).unsqueeze(0).expand({7, 150})
                           : x.select(1, 4).unsqueeze(1).expand({7, 150}));
  }
  return out;
}

std::string describe(const ElementwiseCase& c, Dtype dtype, const char* layout) {
  std::ostringstream s;
  s << "kernel " << int(c.kernel) << " (inputs \"" << c.inputs << "\") in " << dtype << " on "
    << layout << " operands";
  return s.str();
}

// Compares case c in `dtype` on contiguous operands and output (1050 elements: 5 blocks of 256
// and a tail) and on the strided ones with a transposed output. False when the CPU kernel does
// not take `dtype` (the caller checks that the cuda table agrees).
bool expect_case_matches(const ElementwiseCase& c, Dtype dtype) {
  const backend::ElementwiseFn cpu = backend::backend_for(kCPU)->elementwise[size_t(c.kernel)];
  const kernels::OpInfo info = kernels::op_info(c.kernel);
  const Dtype out_dtype = info.predicate ? kBool : dtype;
  std::vector<Tensor> in;
  for (int k = 0; k < info.inputs; ++k)
    in.push_back(elementwise_input(c, k, dtype, in.empty() ? Tensor() : in[0]));
  for (const bool strided : {false, true}) {
    const std::vector<Tensor> operands = strided ? strided_operands(in) : in;
    const auto output = [&] {
      return strided ? empty({150, 7}, {.dtype = out_dtype}).t() : empty({7, 150}, {.dtype = out_dtype});
    };
    const Tensor want = output(), got = output();
    try {
      cpu({"cpu", want, operands, dtype, c.args});
    } catch (const Error&) {
      return false;  // a dtype the CPU kernel does not take
    }
    kernels::emulate_elementwise(
        plan_elementwise_launch(c.kernel, {"emulated", got, operands, dtype, c.args}));
    const std::string what = describe(c, dtype, strided ? "strided" : "contiguous");
    if (!is_floating_point(out_dtype)) {
      EXPECT_TRUE(got.equal(want)) << what << "\ngot " << got << "\nwant " << want;
    } else {
      const double tol = c.ulps * eps(out_dtype);
      EXPECT_TRUE(allclose(got, want, tol, tol, /*equal_nan=*/true))
          << what << "\ngot " << got << "\nwant " << want;
    }
  }
  return true;
}

// Every kernel of the cuda table against the CPU backend's entry of the same ElementwiseKernel,
// in every dtype the cuda kernels store: the table takes exactly the dtypes the CPU kernel takes
// among them, and each case agrees (see ElementwiseCase for the tolerances). A kernel in the
// table without a case here, or a case for a kernel outside it, fails.
TEST(CudaEmulation, EveryElementwiseKernelMatchesTheCpuBackendInEveryDtypeAndLayout) {
  for (size_t k = 0; k < size_t(K::kCount); ++k) {
    const K kernel = K(k);
    const bool tested = std::any_of(elementwise_cases().begin(), elementwise_cases().end(),
                                    [&](const ElementwiseCase& c) { return c.kernel == kernel; });
    EXPECT_EQ(has_elementwise_kernel(kernel), tested)
        << "kernel " << k << (tested ? " has a case but no cuda kernel" : " has no case here");
  }
  for (const ElementwiseCase& c : elementwise_cases()) {
    const kernels::TypeSet types = kernels::op_info(c.kernel).types;
    for (size_t t = 0; t < std::size(kCudaDtypes); ++t) {
      const bool cuda_takes = (types & kernels::type_bit(kernels::Type(t))) != 0;
      const bool cpu_takes = expect_case_matches(c, kCudaDtypes[t]);
      EXPECT_EQ(cuda_takes, cpu_takes) << describe(c, kCudaDtypes[t], "any");
    }
  }
}

// masked_fill's value and add's alpha on int64 beyond 2^53 (a double would round them).
TEST(CudaEmulation, Int64ArgumentsStayExact) {
  const int64_t big = (int64_t(1) << 60) + 1;
  const Tensor x = arange(1050, {.dtype = kInt64}).reshape({7, 150});
  const Tensor mask = (wavy(7, 150, kFloat64, 0.3) > 0).to(kInt64);
  const ElementwiseArgs value{.scalar = {Scalar(big)}};
  const Tensor self = x.clone();
  const std::vector<Tensor> fill_in{self, mask};
  kernels::emulate_elementwise(
      plan_elementwise_launch(K::masked_fill, {"masked_fill", self, fill_in, kInt64, value}));
  EXPECT_TRUE(self.equal(x.masked_fill(mask.to(kBool), big)));
  const Tensor sum = empty({7, 150}, {.dtype = kInt64});
  const std::vector<Tensor> add_in{x, ones({7, 150}, {.dtype = kInt64})};
  kernels::emulate_elementwise(plan_elementwise_launch(K::add, {"add", sum, add_in, kInt64, value}));
  EXPECT_TRUE(sum.equal(x + big));
}

// A fake CUDA device (backend/fake_device.h: host memory) whose elementwise entries are the
// emulated kernels of the cuda table, installed as elementwise.cpp installs the device's, with
// the emulated copy and fill: the public ops of tests/cuda/elementwise_test.cpp (the front ends'
// promotion, arguments and operand layouts as they reach the kernels) run on it against the CPU.
struct EmulatedElementwiseDevice : test::FakeDevice {
  // The plans read the operands' memory through host views, as the other fake devices here.
  template <K Kernel>
  static void run(const backend::ElementwiseCall& call) {
    std::vector<Tensor> in;
    for (const Tensor& t : call.in) in.push_back(host_view(t));
    kernels::emulate_elementwise(plan_elementwise_launch(
        Kernel, {call.op, host_view(call.out), in, call.compute, call.args}));
  }
  EmulatedElementwiseDevice() {
    [&]<size_t... I>(std::index_sequence<I...>) {
      ((has_elementwise_kernel(K(I)) ? void(table[K(I)] = &run<K(I)>) : void()), ...);
    }(std::make_index_sequence<size_t(K::kCount)>());
    table.copy = [](const Tensor& dst, const Tensor& src) {
      kernels::emulate_copy(plan_copy_launch(host_view(dst), host_view(src)));
    };
    table.fill = [](const Tensor& dst, Scalar value) {
      kernels::emulate_fill(plan_fill_launch(host_view(dst), value));
    };
  }
};

test::DeviceUnderTest emulated_device() {
  return {test::kFakeDevice, &test::FakeDevice::copy_of,
          [](const Tensor& t) { return test::FakeDevice::host_view(t).clone(); },
          /*copies_to_host=*/false};
}

TEST(CudaEmulation, PublicElementwiseOpsOnTheEmulatedKernelsMatchTheCpu) {
  const EmulatedElementwiseDevice device;
  for (const Dtype dtype : kFloating) {
    test::expect_floating_ops_match_cpu(emulated_device(), dtype, [](const Tensor& t) { return t; },
                                        "contiguous");
    test::expect_floating_ops_match_cpu(emulated_device(), dtype,
                                        [](const Tensor& t) { return t.t(); }, "transposed");
    test::expect_floating_ops_match_cpu(
        emulated_device(), dtype,
        [](const Tensor& t) { return t.select(0, 5).unsqueeze(0).expand({33, 65}); }, "broadcast");
  }
  for (const Dtype dtype : {kInt32, kInt64, kBool})
    test::expect_integer_ops_match_cpu(emulated_device(), dtype);
}

// A grid smaller than the work (the plan caps it at 65536 blocks): the grid-stride loop gives
// every element to exactly one thread, over three dims that do not merge.
TEST(CudaEmulation, GridStrideLoopsCoverWorkBeyondTheGrid) {
  const Tensor x = wavy(1000, 12, kFloat32).reshape({10, 100, 12}).permute({2, 0, 1});
  const Tensor out = empty({12, 10, 100});
  const std::vector<Tensor> in{x};
  kernels::Launch l = plan_elementwise_launch(K::neg, {"neg", out, in, kFloat32, {}});
  ASSERT_EQ(l.ndim, 2);  // (12, 1000): x's last two dims merge
  ASSERT_EQ(l.blocks, 47u);
  l.blocks = 3;
  kernels::emulate_elementwise(l);
  EXPECT_TRUE(out.equal(neg(x)));
}

// ── reductions ──────────────────────────────────────────────────────────────────────────────

/// out = op(in) over dims by the emulated kernels, with the partial buffer a split launch needs.
Tensor reduce_emulated(ReduceOp op, const Tensor& in, std::vector<int64_t> dims) {
  const Tensor want_shape = in.sum(dims);
  const Tensor out = empty(want_shape.sizes(), {.dtype = in.dtype()});
  int64_t count = 1;
  for (const int64_t d : dims) count *= in.size(d);
  kernels::ReduceLaunch l = plan_reduce_launch(op, {"emulated", out, in, dims, double(count)});
  std::vector<char> partial(size_t(reduce_partial_bytes(l)));
  l.partial = partial.data();
  kernels::emulate_reduce(l);
  return out;
}

// The device's combine tree, by hand: 2^24 in thread 0 and ones in threads 1-63 (one block of 64).
// In float32 2^24 + 1 rounds back to 2^24, so the order decides the result. Warp 0's shuffles
// add lane 16's 1 to lane 0 (lost), then 2, 4, 8 and 16 (kept): 2^24 + 30; warp 1 gives 32; the
// second tree adds them: 2^24 + 62. A sequential sum gives 2^24, the exact sum 2^24 + 63.
TEST(CudaEmulation, SumsCombineInTheDevicesTreeOrder) {
  const Tensor x = ones({64});
  x.select(0, 0).fill_(0x1p24);
  EXPECT_EQ(reduce_emulated(ReduceOp::sum, x, {0}).item<float>(), 0x1p24f + 62);
}

// Sums of small integers are exact in float32 in any order, so they must match the CPU's bits:
// any element dropped or counted twice shows. One output over 100000 elements splits into 49
// chunks (the second pass); the others keep strided dims.
TEST(CudaEmulation, ReductionsCoverEveryElementOnceSplitOrNot) {
  const Tensor ints = (wavy(500, 200, kFloat64) * 4).round().to(kFloat32);  // in [-12, 12]
  const std::pair<Tensor, std::vector<int64_t>> cases[] = {
      {ints, {0, 1}},                                            // one output, split
      {ints.t(), {0}},                                           // 500 outputs, strided lines
      {ints.reshape({50, 10, 200}).permute({1, 2, 0}), {0, 2}},  // kept and reduced both strided
  };
  for (const auto& [x, dims] : cases) {
    EXPECT_TRUE(reduce_emulated(ReduceOp::sum, x, dims).equal(x.sum(dims))) << x.sizes();
    EXPECT_TRUE(reduce_emulated(ReduceOp::amax, x, dims).equal(x.amax(dims))) << x.sizes();
    EXPECT_TRUE(reduce_emulated(ReduceOp::amin, x, dims).equal(x.amin(dims))) << x.sizes();
  }
}

// Rounded sums in each dtype against the CPU's. Neither side sums in the exact order of the
// other: the CPU sums pairwise in float32 (float64 for float64), depth about log2(n); the kernel
// sums each thread's elements in sequence, then block_reduce's tree (10 levels), then the splits
// in sequence. Each result is within depth * eps * sum(|x|) of the exact sum (the classic bound
// for recursive summation), so the two are within the sum of those, plus half an ulp of the
// result for float16/bfloat16, which round once on the store.
TEST(CudaEmulation, RoundedSumsAndMeansAgreeWithinTheAccumulationBound) {
  for (const Dtype dtype : kFloating) {
    const Tensor x = wavy(300, 400, dtype, 0.5);
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{0, 1}, {1}, {0}}) {
      const Tensor out = empty(x.sum(dims).sizes(), {.dtype = dtype});
      const kernels::ReduceLaunch l = plan_reduce_launch(ReduceOp::sum, {"sum", out, x, dims, 1});
      const int64_t per_thread = (l.chunk + l.threads - 1) / l.threads;
      const double depth = double(per_thread + 10 + l.splits) + std::log2(double(l.reduced));
      const Dtype acc = dtype == kFloat64 ? kFloat64 : kFloat32;
      const Tensor bound = x.to(kFloat64).abs().sum(dims) * depth * eps(acc);
      for (const ReduceOp op : {ReduceOp::sum, ReduceOp::mean}) {
        const bool mean = op == ReduceOp::mean;
        const Tensor want = mean ? x.mean(dims) : x.sum(dims);
        const Tensor got = reduce_emulated(op, x, dims);
        const Tensor tol = (mean ? bound / double(l.reduced) : bound) +
                           want.to(kFloat64).abs() * (dtype == acc ? 0.0 : eps(dtype));
        EXPECT_TRUE(((got.to(kFloat64) - want.to(kFloat64)).abs() <= tol).all().item<bool>())
            << dtype << " op " << int(op) << " over " << dims.size() << " dims\ngot " << got
            << "\nwant " << want;
      }
    }
  }
}

TEST(CudaEmulation, MaxAndMinPropagateNaNAndRoundNothing) {
  for (const Dtype dtype : kFloating) {
    const Tensor x = wavy(40, 70, dtype);
    x.select(0, 7).select(0, 33).fill_(NAN);  // row 7 has a NaN
    for (const std::vector<int64_t>& dims : {std::vector<int64_t>{1}, {0, 1}}) {
      EXPECT_TRUE(allclose(reduce_emulated(ReduceOp::amax, x, dims), x.amax(dims), 0, 0, true))
          << dtype;
      EXPECT_TRUE(allclose(reduce_emulated(ReduceOp::amin, x, dims), x.amin(dims), 0, 0, true))
          << dtype;
    }
  }
}

// ── softmax ─────────────────────────────────────────────────────────────────────────────────

// Along the last dim (inner 1) and a middle one (inner 6), dims that are not whole warps, and an
// all -inf line (NaN). Tolerance: the max and the sum of exps are combined in another order than
// the CPU's, and exp/log come from another library: a few eps, relative, plus a few absolute.
TEST(CudaEmulation, SoftmaxAndLogSoftmaxMatchTheCpuBackend) {
  for (const Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = wavy(15, 77 * 6, dtype, 2.0).reshape({15, 77, 6});
    x.select(0, 4).select(1, 2).fill_(-INFINITY);  // the line (4, :, 2) along dim 1
    for (const int64_t dim : {1, 2})
      for (const bool log : {false, true}) {
        const Tensor y = empty_like(x);
        kernels::emulate_softmax(plan_softmax_launch("softmax", y, x, dim, log));
        const Tensor want = log ? log_softmax(x, dim) : softmax(x, dim);
        const double tol = 16 * eps(dtype);
        EXPECT_TRUE(allclose(y, want, tol, tol, /*equal_nan=*/true))
            << dtype << " dim " << dim << " log " << log;
        if (dim == 1) {
          EXPECT_TRUE(y.select(0, 4).select(1, 2).isnan().all().item<bool>());
        }
      }
  }
}

// The backwards from one output y and gradient g against the CPU backend: the gradient its
// autograd gives through softmax/log_softmax in float32 and float64; for float16 and bfloat16,
// whose CPU formula runs in the half type, the same formula in float64 on the same rounded
// values (the kernel sums in float, so it rounds once at the store: within an ulp or two).
TEST(CudaEmulation, SoftmaxBackwardsMatchTheCpuBackend) {
  const Tensor x = wavy(15, 77 * 6, kFloat64, 2.0).reshape({15, 77, 6});
  const Tensor g = wavy(15, 77 * 6, kFloat64, 0.5).reshape({15, 77, 6});
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16})
    for (const int64_t dim : {1, 2})
      for (const bool log : {false, true}) {
        const bool half = dtype == kFloat16 || dtype == kBFloat16;
        const Tensor leaf = x.to(half ? kFloat32 : dtype).detach().requires_grad_(true);
        const Tensor out = log ? log_softmax(leaf, dim) : softmax(leaf, dim);
        const Tensor y = out.detach().to(dtype), gd = g.to(dtype);
        const Tensor dx = empty_like(y);
        kernels::emulate_softmax_backward(
            plan_softmax_backward_launch("softmax_backward", dx, gd, y, dim, log));
        Tensor want;
        if (half) {
          const Tensor y64 = y.to(kFloat64), g64 = gd.to(kFloat64);
          want =
              log ? g64 - y64.exp() * g64.sum(dim, true) : y64 * (g64 - (g64 * y64).sum(dim, true));
        } else {
          out.backward(gd);
          want = leaf.grad();
        }
        const double tol = (half ? 2 : 16) * eps(dtype);
        EXPECT_TRUE(allclose(dx.to(kFloat64), want.to(kFloat64), tol, tol))
            << dtype << " dim " << dim << " log " << log;
      }
  const Tensor y = empty({3, 4});
  EXPECT_ERROR(plan_softmax_backward_launch("softmax_backward", y, y.t(), y, 1, false),
               "expected contiguous operands of one shape and dtype");
  const Tensor i = zeros({3}, {.dtype = kInt64});
  EXPECT_ERROR(plan_softmax_backward_launch("softmax_backward", i, i, i, 0, false),
               "[softmax_backward] expected a floating-point output, got torch.int64");
}

// Through the front end on a fake CUDA device whose softmax entries are the emulated kernels:
// backward() runs the fused kernel on the forward's output; create_graph keeps the formula (its
// double backward needs the graph), which this device could not run without its elementwise
// kernels.
TEST(CudaEmulation, SoftmaxBackwardOnTheDeviceIsTheFusedKernel) {
  using test::FakeDevice;
  FakeDevice device;
  device.table.softmax.softmax = [](const char* op, const Tensor& y, const Tensor& x, int64_t d) {
    kernels::emulate_softmax(
        plan_softmax_launch(op, FakeDevice::host_view(y), FakeDevice::host_view(x), d, false));
  };
  device.table.softmax.softmax_backward = [](const char* op, const Tensor& dx, const Tensor& g,
                                             const Tensor& y, int64_t d) {
    FakeDevice::calls().push_back(op);
    kernels::emulate_softmax_backward(
        plan_softmax_backward_launch(op, FakeDevice::host_view(dx), FakeDevice::host_view(g),
                                     FakeDevice::host_view(y), d, false));
  };
  const Tensor g = wavy(4, 30, kFloat32, 1.0);
  const Tensor x = FakeDevice::copy_of(wavy(4, 30, kFloat32)).requires_grad_(true);
  const Tensor y = softmax(x, 1);
  y.backward(FakeDevice::copy_of(g));
  EXPECT_EQ(FakeDevice::calls(), std::vector<std::string>{"softmax_backward"});
  const Tensor want = empty({4, 30});
  kernels::emulate_softmax_backward(
      plan_softmax_backward_launch("want", want, g, FakeDevice::host_view(y), 1, false));
  EXPECT_TRUE(FakeDevice::host_view(x.grad()).equal(want));
  const Tensor again = softmax(x, 1);
  EXPECT_ERROR(again.backward(FakeDevice::copy_of(g), true, true), test::kMissing);
  EXPECT_EQ(FakeDevice::calls().size(), 1u);
}

// ── fused optimizer updates ─────────────────────────────────────────────────────────────────

// Three steps on two copies of one parameter and its state: the CPU backend's fused kernel on
// one, the emulated kernel on the other, from the same step scalars, in float32 and float64.
// 1000 elements: 4 blocks with a tail. The kernel fuses exactly the products nvcc would (explicit
// fmas); the CPU's compiler may fuse others, so each step's handful of roundings may differ by an
// ulp: a relative tolerance of 16 eps over three steps.
template <class Step>
void expect_same_trajectory(Dtype dtype, int state_buffers, const Step& step) {
  const Tensor param = wavy(20, 50, dtype), grad = wavy(20, 50, dtype, 0.7);
  std::vector<Tensor> cpu{param.clone()}, emulated{param.clone()};
  for (int k = 0; k < state_buffers; ++k) {
    cpu.push_back(wavy(20, 50, dtype, k).abs());  // second moments are never negative
    emulated.push_back(cpu.back().clone());
  }
  for (int t = 1; t <= 3; ++t) {
    step(cpu, grad, t, false);
    step(emulated, grad, t, true);
  }
  const double tol = 16 * eps(dtype);
  for (size_t k = 0; k < cpu.size(); ++k)
    EXPECT_TRUE(allclose(emulated[k], cpu[k], tol, tol)) << dtype << " tensor " << k;
}

const backend::OptimKernels& cpu_optim() { return backend::backend_for(kCPU)->optim; }

TEST(CudaEmulation, SgdUpdatesFollowTheCpuKernel) {
  for (const Dtype dtype : {kFloat32, kFloat64})
    for (const bool nesterov : {false, true}) {
      expect_same_trajectory(dtype, 1,
                             [&](std::vector<Tensor>& t, const Tensor& g, int step, bool emulate) {
                               const backend::SgdStep s{.lr = 0.1,
                                                        .weight_decay = 0.01,
                                                        .momentum = 0.9,
                                                        .dampening = nesterov ? 0 : 0.25,
                                                        .nesterov = nesterov,
                                                        .maximize = !nesterov,
                                                        .first = step == 1};
                               if (emulate)
                                 kernels::emulate_optim(plan_sgd_launch(t[0], g, t[1], s));
                               else
                                 cpu_optim().sgd(t[0], g, t[1], s);
                             });
      expect_same_trajectory(dtype, 0,
                             [&](std::vector<Tensor>& t, const Tensor& g, int,
                                 bool emulate) {  // no momentum buffer
                               const backend::SgdStep s{.lr = 0.3,
                                                        .weight_decay = 0,
                                                        .momentum = 0,
                                                        .dampening = 0,
                                                        .nesterov = false,
                                                        .maximize = false,
                                                        .first = false};
                               if (emulate)
                                 kernels::emulate_optim(plan_sgd_launch(t[0], g, Tensor(), s));
                               else
                                 cpu_optim().sgd(t[0], g, Tensor(), s);
                             });
    }
}

TEST(CudaEmulation, AdamAndAdamWUpdatesFollowTheCpuKernel) {
  for (const Dtype dtype : {kFloat32, kFloat64})
    for (const bool adamw : {false, true}) {
      expect_same_trajectory(
          dtype, 3, [&](std::vector<Tensor>& t, const Tensor& g, int step, bool emulate) {
            const double lr = 0.01, beta1 = 0.9, beta2 = 0.999, wd = 0.1;
            const backend::AdamStep s{.beta1 = beta1,
                                      .beta2 = beta2,
                                      .l2 = adamw ? 0 : wd,
                                      .decay = adamw ? 1 - lr * wd : 1,
                                      .bc2_sqrt = std::sqrt(1 - std::pow(beta2, step)),
                                      .eps = 1e-8,
                                      .neg_step_size = -lr / (1 - std::pow(beta1, step)),
                                      .maximize = adamw,
                                      .decoupled = adamw};
            const Tensor amsgrad = adamw ? t[3] : Tensor();
            if (emulate)
              kernels::emulate_optim(plan_adam_launch(t[0], g, t[1], t[2], amsgrad, s));
            else
              cpu_optim().adam(t[0], g, t[1], t[2], amsgrad, s);
          });
    }
}

TEST(CudaEmulation, AdamaxNAdamAndRAdamUpdatesFollowTheCpuKernel) {
  const double lr = 0.01, beta1 = 0.9, beta2 = 0.999;
  for (const Dtype dtype : {kFloat32, kFloat64}) {
    for (const bool maximize : {false, true})
      expect_same_trajectory(dtype, 2, [&](std::vector<Tensor>& t, const Tensor& g, int step,
                                           bool emulate) {
        const backend::AdamaxStep s{.beta1 = beta1, .beta2 = beta2, .l2 = maximize ? 0 : 0.1,
                                    .eps = 1e-8, .neg_clr = -lr / (1 - std::pow(beta1, step)),
                                    .maximize = maximize};
        if (emulate)
          kernels::emulate_optim(plan_adamax_launch(t[0], g, t[1], t[2], s));
        else
          cpu_optim().adamax(t[0], g, t[1], t[2], s);
      });
    expect_same_trajectory(dtype, 2, [&](std::vector<Tensor>& t, const Tensor& g, int step,
                                         bool emulate) {
      // The momentum cache's coefficients as the front end makes them (any values will do here).
      const double mu = beta1 * (1 - 0.5 * std::pow(0.96, step * 0.004));
      const double mu_next = beta1 * (1 - 0.5 * std::pow(0.96, (step + 1) * 0.004));
      const double product = mu * 0.95, product_next = product * mu_next;
      const backend::NAdamStep s{.beta1 = beta1, .beta2 = beta2, .l2 = 0.05, .eps = 1e-8,
                                 .bias_correction2 = 1 - std::pow(beta2, step),
                                 .grad_coef = -lr * (1 - mu) / (1 - product),
                                 .avg_coef = -lr * mu_next / (1 - product_next)};
      if (emulate)
        kernels::emulate_optim(plan_nadam_launch(t[0], g, t[1], t[2], s));
      else
        cpu_optim().nadam(t[0], g, t[1], t[2], s);
    });
    for (const bool rectify : {false, true})
      expect_same_trajectory(dtype, 2, [&](std::vector<Tensor>& t, const Tensor& g, int step,
                                           bool emulate) {
        const backend::RAdamStep s{.beta1 = beta1, .beta2 = beta2, .l2 = rectify ? 0.1 : 0,
                                   .eps = 1e-8, .bias_correction1 = 1 - std::pow(beta1, step),
                                   .lr = lr, .rectify = rectify,
                                   .bc2_sqrt = std::sqrt(1 - std::pow(beta2, step)),
                                   .rect = 0.3 + 0.1 * step};
        if (emulate)
          kernels::emulate_optim(plan_radam_launch(t[0], g, t[1], t[2], s));
        else
          cpu_optim().radam(t[0], g, t[1], t[2], s);
      });
  }
}

TEST(CudaEmulation, RMSpropAndAdagradUpdatesFollowTheCpuKernel) {
  for (const Dtype dtype : {kFloat32, kFloat64}) {
    // Plain; centered with momentum and weight decay, maximizing.
    for (const bool full : {false, true})
      expect_same_trajectory(dtype, 3, [&](std::vector<Tensor>& t, const Tensor& g, int,
                                           bool emulate) {
        const backend::RMSpropStep s{.lr = 0.01, .alpha = 0.99, .eps = 1e-8,
                                     .l2 = full ? 0.1 : 0, .momentum = full ? 0.9 : 0,
                                     .maximize = full};
        // A centered grad_avg may exceed sqrt(square_avg): keep it small so the root is real.
        if (full && t[2].abs().max().item<double>() > 0.01) t[2].mul_(0.001);
        const Tensor grad_avg = full ? t[2] : Tensor(), buffer = full ? t[3] : Tensor();
        if (emulate)
          kernels::emulate_optim(plan_rmsprop_launch(t[0], g, t[1], grad_avg, buffer, s));
        else
          cpu_optim().rmsprop(t[0], g, t[1], grad_avg, buffer, s);
      });
    for (const bool maximize : {false, true})
      expect_same_trajectory(dtype, 1, [&](std::vector<Tensor>& t, const Tensor& g, int step,
                                           bool emulate) {
        const backend::AdagradStep s{.neg_clr = -0.01 / (1 + (step - 1) * 0.001),
                                     .l2 = maximize ? 0 : 0.1, .eps = 1e-10,
                                     .maximize = maximize};
        if (emulate)
          kernels::emulate_optim(plan_adagrad_launch(t[0], g, t[1], s));
        else
          cpu_optim().adagrad(t[0], g, t[1], s);
      });
  }
}

// ── GradScaler's unscale ────────────────────────────────────────────────────────────────────

// Each floating dtype, a gradient clean or with an inf or NaN as its very last element (in the
// tail block), scales that round and one that is exact, and 1 (a check that writes nothing):
// the CPU backend's kernel's verdict and bits (one multiply in float, double for double, rounded
// once on both sides).
TEST(CudaEmulation, UnscaleChecksAndUnscalesAsTheCpuKernel) {
  for (const Dtype dtype : kFloating)
    for (const float bad : {0.0f, INFINITY, NAN})
      for (const float inv_scale : {1.0f / 1024, 1.0f / 3, 1.0f}) {
        const Tensor g = wavy(7, 150, dtype) * 100;
        if (bad != 0) g.select(0, 6).select(0, 149).fill_(bad);
        const Tensor want = g.clone();
        const bool want_inf = cpu::non_finite_check_and_unscale_({&want, 1}, inv_scale);
        int32_t found_inf = 0;
        kernels::emulate_unscale(plan_unscale_launch(g, inv_scale, &found_inf));
        EXPECT_EQ(found_inf != 0, want_inf) << dtype << " " << bad;
        EXPECT_TRUE(allclose(g, want, 0, 0, /*equal_nan=*/true)) << dtype << " " << inv_scale;
      }
}

// Through GradScaler on a fake CUDA device whose amp entry plans and runs the emulated kernel as
// the CUDA backend's entry (src/backend/cuda/amp.cpp) launches it, one flag for the device: the
// same verdict, unscaled gradients and skipped step as GradScaler over the same gradients on the
// CPU.
bool emulated_unscale(std::span<const Tensor> tensors, float inv_scale) {
  test::FakeDevice::calls().push_back("unscale");
  int32_t found_inf = 0;
  for (const Tensor& t : tensors)
    kernels::emulate_unscale(
        plan_unscale_launch(test::FakeDevice::host_view(t), inv_scale, &found_inf));
  return found_inf != 0;
}

TEST(CudaEmulation, GradScalerOnTheDeviceReachesTheEmulatedKernel) {
  using test::FakeDevice;
  FakeDevice device;
  device.table.amp.non_finite_check_and_unscale_ = &emulated_unscale;
  for (const Dtype dtype : {kFloat32, kFloat64, kBFloat16})  // float16 grads are refused first
    for (const float bad : {0.0f, INFINITY, NAN}) {
      const Tensor grad = wavy(3, 70, dtype) * 1000;
      if (bad != 0) grad.select(0, 2).select(0, 69).fill_(bad);
      Tensor on_cpu = zeros({3, 70}, {.dtype = dtype}).requires_grad_();
      Tensor on_device = FakeDevice::copy_of(zeros({3, 70}, {.dtype = dtype})).requires_grad_();
      on_cpu.mutable_grad() = grad.clone();
      on_device.mutable_grad() = FakeDevice::copy_of(grad);
      optim::SGD cpu_opt({on_cpu}, {.lr = 0}), device_opt({on_device}, {.lr = 0});
      amp::GradScaler cpu_scaler({.init_scale = 3.0}), device_scaler({.init_scale = 3.0});
      cpu_scaler.scale(ones({1}));  // starts each scaler's iteration: the scale is on the host
      device_scaler.scale(ones({1}));
      cpu_scaler.unscale_(cpu_opt);
      device_scaler.unscale_(device_opt);
      EXPECT_TRUE(allclose(FakeDevice::host_view(on_device.grad()), on_cpu.grad(), 0, 0,
                           /*equal_nan=*/true))
          << dtype << " " << bad;
      if (bad == 0) continue;  // a clean step would need the device's SGD kernel
      EXPECT_FALSE(device_scaler.step(device_opt)) << dtype << " " << bad;
      EXPECT_FALSE(cpu_scaler.step(cpu_opt));
      device_scaler.update();
      cpu_scaler.update();
      EXPECT_EQ(device_scaler.get_scale(), cpu_scaler.get_scale());
    }
  EXPECT_EQ(FakeDevice::calls().size(), 9u);
}

}  // namespace
}  // namespace ember::cuda
