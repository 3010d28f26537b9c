// bfloat16 convolutions through oneDNN's convolution primitives.
#include "backend/cpu/conv_onednn.h"

#include <omp.h>

#include <array>
#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backend/buffers.h"
#include "core/parallel.h"

// The primitive API below is oneDNN 2.x's (operation descriptors, removed in 3.0), what Debian 12
// ships (libdnnl-dev 2.6.3).
static_assert(DNNL_VERSION_MAJOR == 2, "conv_onednn.cpp is written for oneDNN 2.x's primitive API");

namespace ember::cpu {

// Note [oneDNN bfloat16 convolution]
// On a CPU with bfloat16 dot products (AVX512-BF16, AMX) a bfloat16 convolution with enough
// channels runs oneDNN's convolution primitives, as PyTorch's does: forward, backward_data
// (grad_input) and backward_weights (grad_weight). Their JIT kernels (jit_bf16:avx512_core_bf16,
// brgconv, AMX's brgconv) multiply with vdpbf16ps/tdpbf16ps into float32 and round each output
// once to bfloat16 (forward: after adding the bias in float32); grad_weight is asked for in
// float32 and rounded once to bfloat16 by the reorder that writes ember's tensor.
// The kernels want channel-blocked layouts (nChw16c, OIhw16i16o...; format_tag::any lets the
// primitive choose): with plain NCHW/OIHW operands oneDNN 2.6 falls back to its im2col + GEMM
// (x64:gemm:jit), no faster than ember's own. So each call reorders its NCHW operands into the
// primitive's layouts and its result back; those reorders are most of what separates the
// primitive's own time from the call's (below), and they are why few channels per group (conv
// 1 -> 32: C = 1, a 28x28 output of 32 channels to reorder) stay on the other paths for
// forward (choose_onednn_conv); their grad_weight reads the 1-channel input as it is and gains.
// A primitive whose kernel is not a bfloat16 JIT (an im2col GEMM, a reference loop) is not
// used: the caller's path runs instead.
// Primitives are built once per shape and thread count (operation and primitive descriptors,
// the reorders) and kept (up to kMaxKeptPlans shapes); each call wraps ember's pointers in
// memory objects and takes its reorder buffers and the primitive's scratchpad
// (scratchpad_mode::user) from ember's allocator, so one primitive serves concurrent callers.
// Threads: Debian's libdnnl is built with OpenMP, so it runs on libgomp's pool with the calling
// thread's omp_get_max_threads(), which sync_blas_threads sets to ember's count first (as for
// OpenBLAS).
// Figures (2-core AMD Zen 5 with AVX512-BF16, no AMX; batch 128, 3x3, padding 1; one thread;
// standalone probe of oneDNN 2.6.3, median ms):
//                         primitive: fwd  bwd_data  bwd_weights | reorders: src  dst
//   32 -> 64 at 14x14, NCHW (gemm):  6.19    6.07      8.78     |           -    -
//   32 -> 64 at 14x14, blocked:      1.86    1.88      2.25     |         0.19  0.39
//    1 -> 32 at 28x28, blocked:      0.27    1.96      0.40     |         0     0.78
// against ember's bfloat16 conv 32 -> 64 (conv_bench, the same thread) forward 2.78 ms (the
// float32 Winograd kernel, widened) and backward (grad_input + grad_weight) 7.27 ms.
// What it gave (the same Zen 5, a quiet moment of a shared machine; before = this path off):
//   conv_bench bfloat16 conv 32 -> 64, ms:   one thread      two threads
//     forward                                2.90 -> 2.44    1.73 -> 1.24
//     backward (+ grad_bias, unchanged)      7.45 -> 6.43    4.11 -> 3.21
//   (float32: 2.92 / 8.33 and 1.45 / 4.49 ms, unchanged), conv 1 -> 32's grad_weight 1.07 ms
//   against 1.5-1.9 ms widened (one thread);
//   bench/train_compare.py --epochs 1 --amp bf16 (two threads, one run each): ember bfloat16
//   7,524 -> 8,368 and 8,681 img/s, against its float32 7,168-8,716 (0.94x -> 1.00-1.17x) and
//   PyTorch's autocast 5,441-5,745 (1.38x -> 1.51-1.53x).
// What is left of a bfloat16 step's convolutions: the reorders (about a quarter of the calls'
// time). The backward shares what it can (onednn_conv2d_backward): grad is reordered once for
// backward_data and backward_weights, and backward_weights sums grad_bias in the same pass (a
// separate bfloat16 sum over N, H, W took 0.15 ms for conv 32 -> 64); conv 32 -> 64's backward,
// both threads: 2.93-2.99 -> 2.55-2.64 ms. A network's first layer (conv 1 -> 32, where the
// reorders cost three times the primitives) takes conv_few_taps.cpp's kernels instead.

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

constexpr int64_t kMinBlockedChannels = 16;  // one channel block of the bfloat16 kernels

// The engine and the kept primitives live to the process's end, never destroyed: a primitive
// must not outlive its engine, and static destructors would run in an order of their own.
const dnnl::engine& cpu_engine() {
  static const auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

enum class ConvPass { kForward, kForwardBias, kGradInput, kGradWeight, kGradWeightBias };

// One argument of a primitive as ember holds it (plain layout, bfloat16) and as the primitive
// wants it; a reorder between the two where they differ.
struct PrimitiveArg {
  int arg;
  memory::desc user, inner;
  bool output;
  std::optional<dnnl::reorder> reorder;  // user -> inner for inputs, inner -> user for outputs
};

struct ConvPrimitives {
  std::optional<dnnl::primitive> primitive;  // none: no bfloat16 JIT kernel for this shape
  memory::desc scratchpad;
  std::vector<PrimitiveArg> operands;
};

memory::dims dnnl_dims(std::initializer_list<int64_t> v) { return memory::dims(v); }

// The plain descriptors of the convolution's tensors: NCHW images, (G,) O, C / G, kh, kw weights.
struct ConvDescs {
  memory::desc src, weights, bias, dst;
  memory::dims strides, dilates, pad_l, pad_r;
};

ConvDescs conv_descs(const OnednnConvShape& s, Tag images, Tag weights_tag, Dt weights_dt) {
  const bool grouped = s.G > 1;
  const memory::dims w = grouped ? dnnl_dims({s.G, s.O / s.G, s.C / s.G, s.kh, s.kw})
                                 : dnnl_dims({s.O, s.C, s.kh, s.kw});
  const Tag wt = weights_tag == Tag::any ? Tag::any : grouped ? Tag::goihw : Tag::oihw;
  // oneDNN's right padding: what the last window reads past the input (may be below the left).
  const int64_t prh = (s.Ho - 1) * s.sh + (s.kh - 1) * s.dh + 1 - s.H - s.ph;
  const int64_t prw = (s.Wo - 1) * s.sw + (s.kw - 1) * s.dw + 1 - s.W - s.pw;
  return {memory::desc(dnnl_dims({s.N, s.C, s.H, s.W}), Dt::bf16, images),
          memory::desc(w, weights_dt, wt),
          memory::desc(dnnl_dims({s.O}), Dt::bf16, Tag::x),
          memory::desc(dnnl_dims({s.N, s.O, s.Ho, s.Wo}), Dt::bf16, images),
          dnnl_dims({s.sh, s.sw}),
          dnnl_dims({s.dh - 1, s.dw - 1}),  // oneDNN counts the gaps: 0 is no dilation
          dnnl_dims({s.ph, s.pw}),
          dnnl_dims({prh, prw})};
}

bool is_bf16_jit(const std::string& impl) {
  return impl.find("gemm") == std::string::npos && impl.find("ref") == std::string::npos;
}

PrimitiveArg primitive_arg(int arg, const memory::desc& user, const memory::desc& inner,
                           bool output) {
  PrimitiveArg o{arg, user, inner, output, std::nullopt};
  if (user != inner) {
    const auto& e = cpu_engine();
    o.reorder = output ? dnnl::reorder(dnnl::reorder::primitive_desc(e, inner, e, user))
                       : dnnl::reorder(dnnl::reorder::primitive_desc(e, user, e, inner));
  }
  return o;
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& a, bool bias,
                                                     const dnnl::primitive_attr& attr) {
  const auto prop = dnnl::prop_kind::forward_training;
  const auto algo = dnnl::algorithm::convolution_direct;
  const auto d = bias ? dnnl::convolution_forward::desc(prop, algo, a.src, a.weights, a.bias, a.dst,
                                                        a.strides, a.dilates, a.pad_l, a.pad_r)
                      : dnnl::convolution_forward::desc(prop, algo, a.src, a.weights, a.dst,
                                                        a.strides, a.dilates, a.pad_l, a.pad_r);
  return {d, attr, cpu_engine()};
}

// pd's primitive with its operands (args(): PrimitiveArgs), or an empty plan where pd's kernel is
// not a bfloat16 JIT.
template <class Primitive, class Pd, class Args>
ConvPrimitives adopt(const Pd& pd, const Args& args) {
  ConvPrimitives plan;
  if (!is_bf16_jit(pd.impl_info_str())) return plan;
  plan.primitive = Primitive(pd);
  plan.scratchpad = pd.scratchpad_desc();
  plan.operands = args();
  return plan;
}

// The primitive and reorders of one convolution; an empty plan where oneDNN has no bfloat16
// JIT kernel for it (or rejects the shape).
ConvPrimitives make_primitives(ConvPass kind, const OnednnConvShape& s) {
  using Args = std::vector<PrimitiveArg>;
  const ConvDescs any = conv_descs(s, Tag::any, Tag::any, Dt::bf16);
  const ConvDescs plain = conv_descs(s, Tag::nchw, Tag::oihw, Dt::bf16);
  // grad_weight in float32, for one rounding at the end (the forward hint keeps bfloat16).
  const memory::desc weights_f32 = conv_descs(s, Tag::any, Tag::any, Dt::f32).weights;
  const auto algo = dnnl::algorithm::convolution_direct;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  try {
    const bool bias = kind == ConvPass::kForwardBias;
    const auto fwd = forward_pd(any, bias, attr);
    switch (kind) {
      case ConvPass::kForward:
      case ConvPass::kForwardBias:
        return adopt<dnnl::convolution_forward>(fwd, [&] {
          Args a = {primitive_arg(DNNL_ARG_SRC, plain.src, fwd.src_desc(), false),
                    primitive_arg(DNNL_ARG_WEIGHTS, plain.weights, fwd.weights_desc(), false),
                    primitive_arg(DNNL_ARG_DST, plain.dst, fwd.dst_desc(), true)};
          if (bias) a.push_back(primitive_arg(DNNL_ARG_BIAS, plain.bias, fwd.bias_desc(), false));
          return a;
        });
      case ConvPass::kGradInput: {
        const dnnl::convolution_backward_data::primitive_desc pd(
            {algo, any.src, any.weights, any.dst, any.strides, any.dilates, any.pad_l, any.pad_r},
            attr, cpu_engine(), fwd);
        return adopt<dnnl::convolution_backward_data>(pd, [&] {
          return Args{primitive_arg(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false),
                      primitive_arg(DNNL_ARG_WEIGHTS, plain.weights, pd.weights_desc(), false),
                      primitive_arg(DNNL_ARG_DIFF_SRC, plain.src, pd.diff_src_desc(), true)};
        });
      }
      case ConvPass::kGradWeight:
      case ConvPass::kGradWeightBias: {
        // Both in float32, for one rounding at the end: the weights', and grad_bias summed in
        // the same pass over grad (the bias's float32 descriptor; ember's is bfloat16).
        const bool with_bias = kind == ConvPass::kGradWeightBias;
        const memory::desc bias_f32(dnnl_dims({s.O}), Dt::f32, Tag::x);
        const auto d = with_bias
                           ? dnnl::convolution_backward_weights::desc(
                                 algo, any.src, weights_f32, bias_f32, any.dst, any.strides,
                                 any.dilates, any.pad_l, any.pad_r)
                           : dnnl::convolution_backward_weights::desc(
                                 algo, any.src, weights_f32, any.dst, any.strides, any.dilates,
                                 any.pad_l, any.pad_r);
        const dnnl::convolution_backward_weights::primitive_desc pd(d, attr, cpu_engine(), fwd);
        // The float32 gradients are rounded once, to bfloat16, by the reorders into ember's
        // tensors.
        return adopt<dnnl::convolution_backward_weights>(pd, [&] {
          Args a = {primitive_arg(DNNL_ARG_SRC, plain.src, pd.src_desc(), false),
                    primitive_arg(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false),
                    primitive_arg(DNNL_ARG_DIFF_WEIGHTS, plain.weights, pd.diff_weights_desc(),
                                  true)};
          if (with_bias)
            a.push_back(primitive_arg(DNNL_ARG_DIFF_BIAS, plain.bias, pd.diff_bias_desc(), true));
          return a;
        });
      }
    }
  } catch (const dnnl::error&) {
    // Unimplemented for this shape (dnnl_unimplemented) or rejected: the caller's path runs.
  }
  return ConvPrimitives{};
}

// Sizes, the kind and the thread count that the primitive was built for.
using ConvKey = std::array<int64_t, 18>;

// At most this many shapes' primitives are kept (each holds its JIT code, some tens of KiB): a
// program whose shapes keep changing starts again from an empty set instead of growing.
constexpr size_t kMaxKeptPlans = 256;

// This shape's plan, built at its first call and kept; shared, so that a caller still running it
// keeps it alive when the set is emptied.
std::shared_ptr<const ConvPrimitives> primitives_for(ConvPass kind, const OnednnConvShape& s,
                                                     int threads) {
  using Plans = std::map<ConvKey, std::shared_ptr<const ConvPrimitives>>;
  static std::mutex mutex;
  static auto& plans = *new Plans;  // kept: see cpu_engine
  const ConvKey key{int64_t(kind), s.N, s.C,  s.H,  s.W,  s.O,  s.kh, s.kw, s.Ho,
                    s.Wo,          s.G, s.sh, s.sw, s.ph, s.pw, s.dh, s.dw, threads};
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = plans.find(key); it != plans.end()) return it->second;
  if (plans.size() >= kMaxKeptPlans) plans.clear();
  return plans[key] = std::make_shared<const ConvPrimitives>(make_primitives(kind, s));
}

// One call's primitives run in turn on one stream, with the buffers they take from ember's
// allocator. An input operand reordered for one primitive is reused by the next that wants the
// same pointer in the same layout (the backward's grad, reordered once for grad_input and
// grad_weight).
class Execution {
 public:
  Execution() : stream_(cpu_engine()) { sync_blas_threads(); }  // oneDNN's OpenMP threads

  // Runs plan's primitive on ember's plain tensors, pointers in the plan's operand order.
  void run(const ConvPrimitives& plan, std::initializer_list<const void*> pointers) {
    const auto& engine = cpu_engine();
    std::unordered_map<int, memory> args;
    std::vector<std::pair<const PrimitiveArg*, memory>> outputs;  // (operand, ember's memory)
    auto pointer = pointers.begin();
    for (const PrimitiveArg& o : plan.operands) {
      void* user_data = const_cast<void*>(*pointer++);
      memory user(o.user, engine, user_data);
      if (!o.reorder) {
        args.emplace(o.arg, user);
        continue;
      }
      if (o.output) {
        outputs.emplace_back(&o, user);
        args.emplace(o.arg, memory(o.inner, engine, buffer(o.inner.get_size())));
        continue;
      }
      args.emplace(o.arg, reordered(o, user, user_data));
    }
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 memory(plan.scratchpad, engine, buffer(plan.scratchpad.get_size())));
    plan.primitive->execute(stream_, args);
    for (auto& [o, user] : outputs) o->reorder->execute(stream_, args.at(o->arg), user);
    stream_.wait();
  }

 private:
  // A buffer of `bytes` from ember's allocator, kept until the call ends.
  void* buffer(size_t bytes) {
    keep_.push_back(backend::new_buffer({int64_t(std::max<size_t>(bytes, 1))}, kUInt8));
    return keep_.back().data_ptr();
  }

  // Input o at user_data in the primitive's layout: reordered now, or earlier in this call.
  memory reordered(const PrimitiveArg& o, memory user, const void* user_data) {
    for (const auto& [data, inner] : inputs_)
      if (data == user_data && inner.get_desc() == o.inner) return inner;
    memory inner(o.inner, cpu_engine(), buffer(o.inner.get_size()));
    o.reorder->execute(stream_, user, inner);
    inputs_.emplace_back(user_data, inner);
    return inner;
  }

  dnnl::stream stream_;
  std::vector<Tensor> keep_;
  std::vector<std::pair<const void*, memory>> inputs_;
};

// This thread's plan for kind on shape s (kept across calls; see primitives_for).
std::shared_ptr<const ConvPrimitives> plan_for(ConvPass kind, const OnednnConvShape& s) {
  return primitives_for(kind, s, omp_in_parallel() ? 1 : get_num_threads());
}

// Runs kind's primitive on ember's plain tensors; false where the plan is empty.
bool run_conv(ConvPass kind, const OnednnConvShape& s,
              std::initializer_list<const void*> pointers) {
  const std::shared_ptr<const ConvPrimitives> plan = plan_for(kind, s);
  if (!plan->primitive) return false;
  Execution().run(*plan, pointers);
  return true;
}

}  // namespace

bool choose_onednn_conv(Dtype dtype, ReducedGemmPath path, OnednnConvPass pass, int64_t Cg,
                        int64_t Og) {
  return dtype == kBFloat16 && path == ReducedGemmPath::kOnednn && Og >= kMinBlockedChannels &&
         (pass == OnednnConvPass::kGradWeight || Cg >= kMinBlockedChannels);
}

bool onednn_conv(OnednnConvPass pass, int64_t Cg, int64_t Og) {
  return choose_onednn_conv(kBFloat16, bf16_gemm_path(), pass, Cg, Og);
}

bool onednn_conv2d(const OnednnConvShape& s, const BFloat16* in, const BFloat16* w,
                   const BFloat16* bias, BFloat16* out) {
  return bias ? run_conv(ConvPass::kForwardBias, s, {in, w, out, bias})
              : run_conv(ConvPass::kForward, s, {in, w, out});
}

bool onednn_conv2d_grad_input(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* w,
                              BFloat16* grad_in) {
  return run_conv(ConvPass::kGradInput, s, {grad, w, grad_in});
}

bool onednn_conv2d_grad_weight(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* in,
                               BFloat16* grad_w) {
  return run_conv(ConvPass::kGradWeight, s, {in, grad, grad_w});
}

bool onednn_conv2d_backward(const OnednnConvShape& s, const BFloat16* grad, const BFloat16* in,
                            const BFloat16* w, BFloat16* grad_in, BFloat16* grad_w,
                            BFloat16* grad_b) {
  const auto weights = plan_for(grad_b ? ConvPass::kGradWeightBias : ConvPass::kGradWeight, s);
  const auto input = grad_in ? plan_for(ConvPass::kGradInput, s) : nullptr;
  if (!weights->primitive || (input && !input->primitive)) return false;
  Execution call;
  if (input) call.run(*input, {grad, w, grad_in});
  if (grad_b)
    call.run(*weights, {in, grad, grad_w, grad_b});
  else
    call.run(*weights, {in, grad, grad_w});
  return true;
}

}  // namespace ember::cpu
