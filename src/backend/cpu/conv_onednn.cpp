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
// time). grad_bias, a bfloat16 sum over (N, H, W), took 2.0 ms for conv 1 -> 32's gradient
// until the reductions widened half-precision leaves (backend/cpu/reduce.h): now about 0.2 ms.

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

enum class ConvPass { kForward, kForwardBias, kGradInput, kGradWeight };

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
      case ConvPass::kGradWeight: {
        const dnnl::convolution_backward_weights::primitive_desc pd(
            {algo, any.src, weights_f32, any.dst, any.strides, any.dilates, any.pad_l, any.pad_r},
            attr, cpu_engine(), fwd);
        // The float32 gradient is rounded once, to bfloat16, by the reorder into ember's tensor.
        return adopt<dnnl::convolution_backward_weights>(pd, [&] {
          return Args{
              primitive_arg(DNNL_ARG_SRC, plain.src, pd.src_desc(), false),
              primitive_arg(DNNL_ARG_DIFF_DST, plain.dst, pd.diff_dst_desc(), false),
              primitive_arg(DNNL_ARG_DIFF_WEIGHTS, plain.weights, pd.diff_weights_desc(), true)};
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

// A buffer of `bytes` from ember's allocator, kept alive in `keep`.
void* allocator_bytes(size_t bytes, std::vector<Tensor>& keep) {
  keep.push_back(backend::new_buffer({int64_t(std::max<size_t>(bytes, 1))}, kUInt8));
  return keep.back().data_ptr();
}

// Runs kind's primitive on ember's plain tensors, pointers in the plan's operand order; false
// where the plan is empty.
bool run_conv(ConvPass kind, const OnednnConvShape& s,
              std::initializer_list<const void*> pointers) {
  sync_blas_threads();  // oneDNN's OpenMP threads: the calling thread's omp_get_max_threads()
  const int threads = omp_in_parallel() ? 1 : get_num_threads();
  const std::shared_ptr<const ConvPrimitives> kept = primitives_for(kind, s, threads);
  const ConvPrimitives& plan = *kept;
  if (!plan.primitive) return false;
  const auto& engine = cpu_engine();
  dnnl::stream stream(engine);
  std::vector<Tensor> keep;
  std::unordered_map<int, memory> args;
  std::vector<std::pair<const PrimitiveArg*, memory>> outputs;  // (operand, ember's memory)
  auto pointer = pointers.begin();
  for (const PrimitiveArg& o : plan.operands) {
    memory user(o.user, engine, const_cast<void*>(*pointer++));
    if (!o.reorder) {
      args.emplace(o.arg, user);
      continue;
    }
    memory inner(o.inner, engine, allocator_bytes(o.inner.get_size(), keep));
    if (o.output)
      outputs.emplace_back(&o, user);
    else
      o.reorder->execute(stream, user, inner);
    args.emplace(o.arg, inner);
  }
  args.emplace(DNNL_ARG_SCRATCHPAD,
               memory(plan.scratchpad, engine, allocator_bytes(plan.scratchpad.get_size(), keep)));
  plan.primitive->execute(stream, args);
  for (auto& [o, user] : outputs) o->reorder->execute(stream, args.at(o->arg), user);
  stream.wait();
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

}  // namespace ember::cpu
