// amp::autocast's state machine and cast rules, driven through the hook's entry point
// (detail::cast_inputs) so they are checked apart from any op: nesting and disabling as in
// PyTorch 1.13 (tests/golden/autocast.json "nesting"), per-thread state, the weight-cast cache
// ("cache": PyTorch's _to_copy counts for two F.linear(x, w) in one region), the promote rule.
#include <ember/amp/autocast.h>
#include <ember/creation.h>

#include <thread>

#include "amp/autocast_state.h"
#include "test_support.h"

namespace ember::amp {
namespace {

const nlohmann::json& golden() {
  static const nlohmann::json g = test::load_golden("autocast.json");
  return g;
}

// The dtype op `op` would produce from `inputs` of one dtype each (the first cast input's dtype,
// or the inputs' promoted dtype when nothing is cast).
Dtype matmul_dtype(const Tensor& a, const Tensor& b) {
  std::vector<Tensor> out;
  const Tensor* in[] = {&a, &b};
  if (detail::cast_inputs("matmul", kCPU, in, out)) return promote_types(out[0].dtype(), out[1].dtype());
  return promote_types(a.dtype(), b.dtype());
}

TEST(AutocastState, NestingAndDisablingAsPyTorch) {
  const auto& g = golden()["nesting"];
  const Tensor a = ones({3, 4}), b = ones({4, 5});
  auto name = [](Dtype d) { return std::string(dtype_name(d)); };
  {
    autocast outer(kCPU, kBFloat16);
    {
      autocast off(kCPU, kBFloat16, {.enabled = false});
      EXPECT_EQ(name(matmul_dtype(a, b)), g["disabled_inside"]);
      {
        autocast again(kCPU, kBFloat16);
        EXPECT_EQ(name(matmul_dtype(a, b)), g["reenabled_inside_disabled"]);
      }
    }
    EXPECT_EQ(name(matmul_dtype(a, b)), g["after_disabled_exit"]);
    {
      autocast inner(kCPU, kBFloat16);
      EXPECT_EQ(name(matmul_dtype(a, b)), g["nested_enabled"]);
    }
    EXPECT_EQ(name(matmul_dtype(a, b)), g["after_nested_exit"]);
  }
  EXPECT_EQ(name(matmul_dtype(a, b)), g["after_outer_exit"]);
  EXPECT_FALSE(is_autocast_enabled(kCPU));
}

TEST(AutocastState, DtypeAndCacheFlagsRestore) {
  EXPECT_EQ(get_autocast_dtype(kCPU), kBFloat16);
  EXPECT_EQ(get_autocast_dtype(kCUDA), kFloat16);
  {
    autocast a(kCPU, kFloat16, {.cache_enabled = false});
    EXPECT_TRUE(is_autocast_enabled(kCPU));
    EXPECT_FALSE(is_autocast_enabled(kCUDA));
    EXPECT_EQ(get_autocast_dtype(kCPU), kFloat16);
    EXPECT_FALSE(is_autocast_cache_enabled());
    {
      autocast b(kCPU);  // the default dtype; cache flag kept when not given
      EXPECT_EQ(get_autocast_dtype(kCPU), kBFloat16);
      EXPECT_FALSE(is_autocast_cache_enabled());
    }
    EXPECT_EQ(get_autocast_dtype(kCPU), kFloat16);
  }
  EXPECT_TRUE(is_autocast_cache_enabled());
  EXPECT_EQ(get_autocast_dtype(kCPU), kBFloat16);
}

TEST(AutocastState, RefusesNonHalfDtypes) {
  EXPECT_ERROR(autocast(kCPU, kFloat32), "[autocast] expected dtype bfloat16 or float16");
  EXPECT_ERROR(autocast(kCPU, kInt64), "got int64");
  EXPECT_FALSE(is_autocast_enabled(kCPU));
}

TEST(AutocastState, PerThread) {
  autocast ac(kCPU, kBFloat16);
  bool other = true;
  std::thread([&] { other = is_autocast_enabled(kCPU); }).join();
  EXPECT_FALSE(other);
  EXPECT_TRUE(is_autocast_enabled(kCPU));
}

int64_t casts_for_two_linears(const Tensor& x, const Tensor& w, AutocastOptions options = {}) {
  const int64_t before = detail::casts_performed();
  autocast ac(kCPU, kBFloat16, options);
  const Tensor* in[] = {&x, &w};
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(detail::cast_inputs("linear", kCPU, in, out));
  EXPECT_EQ(out[1].dtype(), kBFloat16);
  return detail::casts_performed() - before;
}

TEST(AutocastState, WeightCastCachedOncePerRegion) {
  const auto& g = golden()["cache"];
  const Tensor x = ones({2, 4});
  const Tensor w = ones({3, 4}).requires_grad_();
  EXPECT_EQ(casts_for_two_linears(x, w), g["leaf_requires_grad"].get<int64_t>());
  EXPECT_EQ(casts_for_two_linears(x, ones({3, 4})), g["no_grad_weight"].get<int64_t>());
  EXPECT_EQ(casts_for_two_linears(x, w, {.cache_enabled = false}),
            g["cache_disabled"].get<int64_t>());
  // The cache is cleared at the region's end: a second region casts w again.
  EXPECT_EQ(casts_for_two_linears(x, w) + casts_for_two_linears(x, w),
            g["two_regions"].get<int64_t>());
}

TEST(AutocastState, PromoteAndFloat32Rules) {
  autocast ac(kCPU, kBFloat16);
  const Tensor f = ones({2}), h = ones({2}, {.dtype = kBFloat16}), d = ones({2}, {.dtype = kFloat64});
  std::vector<Tensor> out;
  const Tensor* fh[] = {&h, &f};
  ASSERT_TRUE(detail::cast_inputs("cat", kCPU, fh, out));
  EXPECT_EQ(out[0].dtype(), kFloat32);
  const Tensor* hh[] = {&h, &h};
  EXPECT_FALSE(detail::cast_inputs("cat", kCPU, hh, out));  // nothing to change
  const Tensor* one[] = {&h};
  ASSERT_TRUE(detail::cast_inputs("mse_loss", kCPU, one, out));
  EXPECT_EQ(out[0].dtype(), kFloat32);
  ASSERT_TRUE(detail::cast_inputs("cross_entropy", kCPU, one, out));  // alias of cross_entropy_loss
  const Tensor* dd[] = {&d, &d};
  EXPECT_FALSE(detail::cast_inputs("matmul", kCPU, dd, out));  // float64 is not eligible
  EXPECT_FALSE(detail::cast_inputs("exp", kCPU, one, out));    // not listed on CPU
}

}  // namespace
}  // namespace ember::amp
