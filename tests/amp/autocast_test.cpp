// amp::autocast through real ops against PyTorch 1.13 (tests/golden/autocast.json): every
// cpu_bf16 case's output dtype under torch.autocast("cpu", bfloat16), nesting and disabling on
// a real matmul, the weight-cast cache on two linear calls, gradients in the parameters'
// dtypes, float16 autocast on CPU (ember's extension), per-thread regions, and CUDA regions: CPU
// tensors untouched, the CUDA table deciding for CUDA tensors.
#include <ember/amp/autocast.h>
#include <ember/ember.h>

#include <functional>
#include <map>
#include <optional>
#include <thread>

#include "amp/autocast_state.h"
#include "core/op_entry.h"
#include "test_support.h"

namespace ember::amp {
namespace {

namespace F = nn::functional;

const nlohmann::json& golden() {
  static const nlohmann::json g = test::load_golden("autocast.json");
  return g;
}

// The golden cases (gen_autocast.py's cases(), same names, same shapes); inputs are float32
// unless the name says bf16 (cast before the region) or f64.
std::map<std::string, std::function<Tensor()>> cases() {
  const Tensor A = randn({3, 4}), B = randn({4, 5});
  const Tensor bA = randn({2, 3, 4}), bB = randn({2, 4, 5});
  const Tensor x3 = randn({1, 2, 8}), w3 = randn({2, 2, 3});
  const Tensor x4 = randn({1, 2, 5, 5}), w4 = randn({2, 2, 3, 3});
  const Tensor t = tensor({0, 1, 2}, kInt64);
  const Tensor p = rand({3});
  const auto bf = [](const Tensor& x) { return x.to(kBFloat16); };
  const Tensor Ab = bf(A), x3b = bf(x3), w3b = bf(w3), x4b = bf(x4), w4b = bf(w4), pb = bf(p);
  return {
      {"matmul", [=] { return matmul(A, B); }},
      {"mm", [=] { return A.mm(B); }},
      {"bmm", [=] { return bmm(bA, bB); }},
      {"linear", [=] { return F::linear(A, B.t()); }},
      {"addmm", [=] { return addmm(randn({3, 5}), A, B); }},
      {"baddbmm", [=] { return baddbmm(randn({2, 3, 5}), bA, bB); }},
      {"addbmm", [=] { return addbmm(randn({3, 5}), bA, bB); }},
      {"conv1d", [=] { return F::conv1d(x3, w3); }},
      {"conv2d", [=] { return F::conv2d(x4, w4); }},
      {"matmul_bf16_f32", [=] { return matmul(Ab, B); }},
      {"matmul_f64", [=] { return matmul(A.to(kFloat64), B.to(kFloat64)); }},
      {"mv", [=] { return mv(A, randn({4})); }},
      {"dot", [=] { return dot(randn({4}), randn({4})); }},
      {"mse_loss", [=] { return F::mse_loss(A, A); }},
      {"mse_loss_bf16", [=] { return F::mse_loss(Ab, Ab); }},
      {"cross_entropy", [=] { return F::cross_entropy(A, t); }},
      {"cross_entropy_bf16", [=] { return F::cross_entropy(Ab, t); }},
      {"nll_loss_bf16", [=] { return F::nll_loss(Ab, t); }},
      {"l1_loss_bf16", [=] { return F::l1_loss(Ab, Ab); }},
      {"smooth_l1_loss_bf16", [=] { return F::smooth_l1_loss(Ab, Ab); }},
      {"huber_loss_bf16", [=] { return F::huber_loss(Ab, Ab); }},
      {"kl_div_bf16", [=] { return F::kl_div(Ab, Ab, {.reduction = "batchmean"}); }},
      {"binary_cross_entropy_bf16", [=] { return F::binary_cross_entropy(pb, pb); }},
      {"binary_cross_entropy_with_logits_bf16",
       [=] { return F::binary_cross_entropy_with_logits(pb, pb); }},
      {"conv_transpose1d_bf16", [=] { return F::conv_transpose1d(x3b, w3b); }},
      {"conv_transpose2d_bf16", [=] { return F::conv_transpose2d(x4b, w4b); }},
      {"prod_bf16", [=] { return Ab.prod(); }},
      {"trace_bf16", [=] { return trace(Ab.narrow(1, 0, 3)); }},
      {"pad_reflect_bf16", [=] { return F::pad(x4b, {1, 1, 1, 1}, {.mode = "reflect"}); }},
      {"pad_reflect_1d_bf16", [=] { return F::pad(x3b, {2, 1}, {.mode = "reflect"}); }},
      {"pad_replicate_bf16", [=] { return F::pad(x3b, {1, 2}, {.mode = "replicate"}); }},
      {"pad_replicate_2d_bf16", [=] { return F::pad(x4b, {1, 1, 2, 0}, {.mode = "replicate"}); }},
      {"pad_constant_bf16", [=] { return F::pad(x4b, {1, 1}); }},
      {"cat_bf16_f32", [=] { return cat({Ab, A}); }},
      {"cat_bf16_bf16", [=] { return cat({Ab, Ab}); }},
      {"stack_f32_bf16", [=] { return stack({A, Ab}); }},
      {"exp", [=] { return exp(A); }},
      {"exp_bf16", [=] { return exp(Ab); }},
      {"log_bf16", [=] { return log(bf(A.abs())); }},
      {"softmax", [=] { return softmax(A, 1); }},
      {"softmax_bf16", [=] { return softmax(Ab, 1); }},
      {"log_softmax_bf16", [=] { return log_softmax(Ab, 1); }},
      {"layer_norm_bf16", [=] { return F::layer_norm(Ab, {4}); }},
      {"batch_norm_bf16", [=] { return F::batch_norm(x4b, {}, {}, {.training = true}); }},
      {"group_norm_bf16", [=] { return F::group_norm(x4b, 1); }},
      {"gelu_bf16", [=] { return gelu(Ab); }},
      {"relu", [=] { return relu(A); }},
      {"sum_bf16", [=] { return Ab.sum(); }},
      {"max_pool2d_bf16", [=] { return F::max_pool2d(x4b, 2); }},
      {"add_f32_bf16", [=] { return A + Ab; }},
      {"cosine_similarity_bf16", [=] { return F::cosine_similarity(Ab, Ab); }},
  };
}

TEST(Autocast, OutputDtypesMatchPyTorch) {
  const auto& want = golden()["cpu_bf16"];
  const auto table = cases();
  EXPECT_EQ(table.size(), want.size()) << "the C++ and Python case lists differ";
  autocast region(kCPU, kBFloat16);
  for (const auto& [name, dtype] : want.items()) {
    SCOPED_TRACE(name);
    auto it = table.find(name);
    ASSERT_NE(it, table.end()) << "no C++ case " << name;
    EXPECT_EQ(dtype_name(it->second().dtype()), dtype.get<std::string>());
  }
}

TEST(Autocast, NestingOnARealOp) {
  const auto& g = golden()["nesting"];
  const Tensor a = randn({3, 4}), b = randn({4, 5});
  auto name = [&] { return std::string(dtype_name(matmul(a, b).dtype())); };
  {
    autocast outer(kCPU, kBFloat16);
    {
      autocast off(kCPU, kBFloat16, {.enabled = false});
      EXPECT_EQ(name(), g["disabled_inside"]);
    }
    EXPECT_EQ(name(), g["after_disabled_exit"]);
  }
  EXPECT_EQ(name(), g["after_outer_exit"]);
}

TEST(Autocast, DtypeAndCacheFlagsRestore) {
  EXPECT_EQ(get_autocast_dtype(kCPU), kBFloat16);
  EXPECT_EQ(get_autocast_dtype(kCUDA), kFloat16);
  {
    autocast a(kCPU, kFloat16, {.cache_enabled = false});
    EXPECT_TRUE(is_autocast_enabled(kCPU));
    EXPECT_FALSE(is_autocast_enabled(kCUDA));
    EXPECT_EQ(get_autocast_dtype(kCPU), kFloat16);
    EXPECT_FALSE(is_autocast_cache_enabled());
    {
      autocast b(kCPU);  // the device's default dtype; the cache flag is kept when not given
      EXPECT_EQ(get_autocast_dtype(kCPU), kBFloat16);
      EXPECT_FALSE(is_autocast_cache_enabled());
    }
    EXPECT_EQ(get_autocast_dtype(kCPU), kFloat16);
  }
  EXPECT_TRUE(is_autocast_cache_enabled());
  EXPECT_FALSE(is_autocast_enabled(kCPU));
}

TEST(Autocast, RefusesNonHalfDtypes) {
  EXPECT_ERROR(autocast(kCPU, kFloat32), "[autocast] expected dtype bfloat16 or float16");
  EXPECT_ERROR(autocast(kCPU, kInt64), "got int64");
  EXPECT_FALSE(is_autocast_enabled(kCPU));
  EXPECT_EQ(matmul(randn({2, 2}), randn({2, 2})).dtype(), kFloat32);
}

// PyTorch's _to_copy counts for two F.linear(x, w) (tests/golden/autocast.json "cache"): a leaf
// weight that requires grad is cast once per region, x every time; a weight without grad, or
// cache_enabled=false, every time; a second region casts again.
int64_t casts_for_two_linears(const Tensor& x, const Tensor& w, AutocastOptions options = {}) {
  const int64_t before = detail::casts_performed();
  autocast region(kCPU, kBFloat16, options);
  EXPECT_EQ(F::linear(x, w).dtype(), kBFloat16);
  F::linear(x, w);
  return detail::casts_performed() - before;
}

TEST(Autocast, WeightCastOncePerRegion) {
  const auto& g = golden()["cache"];
  const Tensor x = randn({2, 4});
  const Tensor w = randn({3, 4}).requires_grad_();
  EXPECT_EQ(casts_for_two_linears(x, w), g["leaf_requires_grad"].get<int64_t>());
  EXPECT_EQ(casts_for_two_linears(x, randn({3, 4})), g["no_grad_weight"].get<int64_t>());
  EXPECT_EQ(casts_for_two_linears(x, w, {.cache_enabled = false}),
            g["cache_disabled"].get<int64_t>());
  EXPECT_EQ(casts_for_two_linears(x, w) + casts_for_two_linears(x, w),
            g["two_regions"].get<int64_t>());
}

TEST(Autocast, GradientsInTheParametersDtype) {
  const auto& g = golden()["grads"];
  const Tensor x = randn({2, 4}).requires_grad_();
  const Tensor w = randn({3, 4}).requires_grad_();
  Tensor y, loss;
  {
    autocast region(kCPU, kBFloat16);
    y = F::linear(x, w);
    loss = F::mse_loss(y, zeros({2, 3}));
  }
  loss.backward();
  EXPECT_EQ(dtype_name(y.dtype()), g["y"].get<std::string>());
  EXPECT_EQ(dtype_name(loss.dtype()), g["loss"].get<std::string>());
  EXPECT_EQ(dtype_name(x.grad().dtype()), g["x_grad"].get<std::string>());
  EXPECT_EQ(dtype_name(w.grad().dtype()), g["w_grad"].get<std::string>());
  // And the values: those of the float32 computation on bfloat16-rounded operands.
  const Tensor w_ref = w.detach().to(kBFloat16).to(kFloat32).requires_grad_();
  const Tensor y_ref = F::linear(x.detach().to(kBFloat16).to(kFloat32), w_ref);
  F::mse_loss(y_ref.to(kBFloat16).to(kFloat32), zeros({2, 3})).backward();
  EXPECT_TRUE(allclose(w.grad(), w_ref.grad(), 2e-2, 2e-2));
}

// Under bfloat16 autocast the reference CNN (the training job's model) keeps its activations
// narrow from layer to layer, as PyTorch 1.13's CPU lists do: convolutions and linear layers in
// bfloat16, batch norm, ReLU, max pooling and dropout on their bfloat16 inputs, only the loss in
// float32. So a training step's forward and backward peak well below the float32 step's: the
// activations saved for backward take half the bytes (max pooling's int64 indices and the
// float32 parameters and gradients do not shrink): 0.64-0.66 of it here (22-23 of 35 MB at batch
// 64, at each CPU level, oneDNN's bfloat16 convolutions or not). One float32 copy kept between
// layers of the first convolution's output would add 0.18 of the float32 peak, of the second's
// 0.09.
TEST(Autocast, TheReferenceCnnStepKeepsActivationsNarrow) {
  manual_seed(0);
  nn::Sequential model(nn::Conv2d(1, 32, 3, {.padding = 1}), nn::BatchNorm2d(32), nn::ReLU(),
                       nn::MaxPool2d(2), nn::Conv2d(32, 64, 3, {.padding = 1}), nn::BatchNorm2d(64),
                       nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(3136, 128),
                       nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
  const Tensor x = randn({64, 1, 28, 28});
  const Tensor y = randint(0, 10, {64});
  const auto step_peak = [&](bool narrow) {
    model->zero_grad();
    const int threads = get_num_threads();
    set_num_threads(1);
    const size_t before = cpu::allocator_stats().allocated_bytes;
    cpu::reset_peak_allocated_bytes();
    {
      Tensor loss;
      {
        std::optional<autocast> region;
        if (narrow) region.emplace(kCPU, kBFloat16);
        Tensor out = model->forward(x);
        EXPECT_EQ(out.dtype(), narrow ? kBFloat16 : kFloat32);
        loss = F::cross_entropy(out, y);
      }
      loss.backward();
    }
    const size_t peak = cpu::allocator_stats().peak_allocated_bytes - before;
    set_num_threads(threads);
    return double(peak);
  };
  step_peak(false), step_peak(true);  // the gradients' first allocation out of the way
  const double full = step_peak(false), narrow = step_peak(true);
  EXPECT_LT(narrow, 0.7 * full) << "peak of the step: float32 " << full / 1e6 << " MB, bfloat16 "
                                << narrow / 1e6 << " MB";
}

// PyTorch 1.13 has no float16 autocast on CPU; ember runs the CPU lists with float16.
TEST(Autocast, Float16OnCpu) {
  autocast region(kCPU, kFloat16);
  EXPECT_EQ(matmul(randn({3, 4}), randn({4, 5})).dtype(), kFloat16);
  EXPECT_EQ(F::mse_loss(randn({3}).to(kFloat16), randn({3}).to(kFloat16)).dtype(), kFloat32);
  EXPECT_EQ(cat({randn({2}).to(kFloat16), randn({2})}).dtype(), kFloat32);
}

TEST(Autocast, RegionsArePerThread) {
  const Tensor a = randn({3, 4}), b = randn({4, 5});
  autocast region(kCPU, kBFloat16);
  Dtype other = kBool;
  std::thread([&] { other = matmul(a, b).dtype(); }).join();
  EXPECT_EQ(other, kFloat32);
  EXPECT_EQ(matmul(a, b).dtype(), kBFloat16);
}

// A CUDA region casts nothing on the CPU: CPU tensors keep their dtypes and values, whatever the
// CPU list says of the op (tests/cuda/amp_test.cpp checks the CUDA tensors on a GPU).
TEST(Autocast, ACudaRegionLeavesCpuTensorsAlone) {
  const Tensor a = randn({3, 4}), b = randn({4, 5});
  const Tensor x4 = randn({1, 2, 5, 5}), w4 = randn({2, 2, 3, 3});
  const Tensor ab = a.to(kBFloat16);
  const Tensor want_mm = matmul(a, b), want_conv = F::conv2d(x4, w4);
  for (const Dtype lower : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(lower));
    autocast region(kCUDA, lower);
    EXPECT_TRUE(is_autocast_enabled(kCUDA));
    EXPECT_FALSE(is_autocast_enabled(kCPU));
    const Tensor mm = matmul(a, b), conv = F::conv2d(x4, w4);
    EXPECT_EQ(mm.dtype(), kFloat32);
    EXPECT_TRUE(mm.equal(want_mm));
    EXPECT_EQ(conv.dtype(), kFloat32);
    EXPECT_TRUE(conv.equal(want_conv));
    EXPECT_EQ(F::linear(a, b.t()).dtype(), kFloat32);
    EXPECT_EQ(F::mse_loss(ab, ab).dtype(), kBFloat16);  // float32 under either device's list
    EXPECT_EQ(softmax(ab, 1).dtype(), kBFloat16);
  }
}

// The op-entry hook a region installs decides with the table of the tensors' device type, and
// only while that device type's autocast is on: ops whose CPU and CUDA policies differ tell which
// table answered.
TEST(Autocast, TheCudaTableDecidesForCudaTensors) {
  using ember::CastPolicy;
  const Device cuda(kCUDA, 0), cpu(kCPU);
  // The calling thread's hook, read by swapping it out and back in.
  const auto hook = [] {
    const AutocastPolicy* h = set_autocast_policy(nullptr);
    set_autocast_policy(h);
    return h;
  };
  {
    autocast region(kCUDA, kBFloat16);
    const AutocastPolicy* h = hook();
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->policy("conv_transpose2d", cuda), CastPolicy::kLowerPrecision);  // CPU: float32
    EXPECT_EQ(h->policy("matmul", cuda), CastPolicy::kLowerPrecision);
    EXPECT_EQ(h->policy("layer_norm", cuda), CastPolicy::kFloat32);  // CPU: not listed
    EXPECT_EQ(h->policy("softmax", cuda), CastPolicy::kFloat32);     // CPU: not listed
    EXPECT_EQ(h->policy("mse_loss", cuda), CastPolicy::kFloat32);
    EXPECT_EQ(h->policy("dot", cuda), CastPolicy::kPromote);
    EXPECT_EQ(h->policy("cat", cuda), CastPolicy::kUntouched);  // CPU: promote
    EXPECT_EQ(h->policy("add", cuda), CastPolicy::kUntouched);
    EXPECT_EQ(h->policy("matmul", cpu), CastPolicy::kUntouched);  // CPU autocast is off
    EXPECT_EQ(h->lower_precision_dtype(cuda), kBFloat16);
    autocast inner(kCUDA);  // CUDA's default dtype
    EXPECT_EQ(h->lower_precision_dtype(cuda), kFloat16);
  }
  {
    autocast region(kCPU, kBFloat16);
    const AutocastPolicy* h = hook();
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->policy("conv_transpose2d", cpu), CastPolicy::kFloat32);
    EXPECT_EQ(h->policy("layer_norm", cpu), CastPolicy::kUntouched);
    EXPECT_EQ(h->policy("cat", cpu), CastPolicy::kPromote);
    EXPECT_EQ(h->policy("matmul", cuda), CastPolicy::kUntouched);  // CUDA autocast is off
  }
  EXPECT_EQ(hook(), nullptr);  // the outermost region's end removed it
}

}  // namespace
}  // namespace ember::amp
