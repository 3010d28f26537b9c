// nn::utils: clip_grad_norm_ (2-norm, 1-norm, inf-norm, no-op below max_norm, non-finite
// handling), clip_grad_value_, parameters_to_vector / vector_to_parameters round trips and
// count_parameters.
// Expected values are worked by hand from PyTorch's definition (coef = max / (total + 1e-6)).
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn/utils.h>

#include <cmath>
#include <vector>

using namespace ember;
namespace U = nn::utils;

namespace {

std::vector<Tensor> params_with_grads(Dtype dtype = kFloat64) {
  Tensor a = zeros({2}, {.dtype = dtype}).requires_grad_(), b = zeros({1}, {.dtype = dtype}).requires_grad_();
  Tensor c = zeros({3}, {.dtype = dtype}).requires_grad_();  // no grad: skipped
  a.mutable_grad() = tensor({3.0, -4.0}, dtype);
  b.mutable_grad() = tensor({12.0}, dtype);
  return {a, b, c};
}

std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

TEST(ClipGradNorm, TwoNormScalesEveryGradient) {
  auto ps = params_with_grads();
  const double total = U::clip_grad_norm_(ps, 1.0);
  EXPECT_DOUBLE_EQ(total, 13.0);
  const double coef = 1.0 / (13.0 + 1e-6);
  EXPECT_NEAR(values(ps[0].grad())[0], 3.0 * coef, 1e-15);
  EXPECT_NEAR(values(ps[0].grad())[1], -4.0 * coef, 1e-15);
  EXPECT_NEAR(values(ps[1].grad())[0], 12.0 * coef, 1e-15);
  EXPECT_FALSE(ps[2].grad().defined());
}

TEST(ClipGradNorm, OtherNormsAndNoOpBelowMax) {
  auto ps = params_with_grads();
  EXPECT_DOUBLE_EQ(U::clip_grad_norm_(ps, 100.0, {.norm_type = 1.0}), 19.0);
  // coef = 100 / 19.000001 > 1 is clamped to 1: unchanged.
  EXPECT_EQ(values(ps[1].grad())[0], 12.0);
  auto qs = params_with_grads();
  EXPECT_DOUBLE_EQ(U::clip_grad_norm_(qs, 6.0, {.norm_type = INFINITY}), 12.0);
  EXPECT_NEAR(values(qs[1].grad())[0], 12.0 * 6.0 / (12.0 + 1e-6), 1e-14);
  auto fs = params_with_grads(kFloat32);  // the norm is computed in the gradients' dtype
  EXPECT_FLOAT_EQ(float(U::clip_grad_norm_(fs, 1.0)), 13.0f);
  EXPECT_EQ(fs[0].grad().dtype(), kFloat32);
  EXPECT_DOUBLE_EQ(U::clip_grad_norm_({zeros({2}).requires_grad_()}, 1.0), 0.0);  // no grads
}

TEST(ClipGradNorm, NonFinite) {
  auto ps = params_with_grads();
  ps[1].mutable_grad() = tensor({NAN}, kFloat64);
  EXPECT_TRUE(std::isnan(U::clip_grad_norm_(ps, 1.0)));  // scaled by NaN, as PyTorch
  auto qs = params_with_grads();
  qs[1].mutable_grad() = tensor({INFINITY}, kFloat64);
  try {
    U::clip_grad_norm_(qs, 1.0, {.error_if_nonfinite = true});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[nn.utils.clip_grad_norm_] The total norm of order 2"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(values(qs[0].grad())[0], 3.0);  // untouched after the error
}

TEST(ClipGradValue, ClampsInPlace) {
  auto ps = params_with_grads();
  U::clip_grad_value_(ps, 3.5);
  EXPECT_EQ(values(ps[0].grad()), (std::vector<double>{3.0, -3.5}));
  EXPECT_EQ(values(ps[1].grad()), (std::vector<double>{3.5}));
}

TEST(ParametersVector, RoundTrip) {
  Tensor w = arange(6, {.dtype = kFloat32}).reshape({2, 3}).requires_grad_();
  Tensor b = tensor({10.0, 20.0}).requires_grad_();
  Tensor v = U::parameters_to_vector({w, b});
  EXPECT_EQ(values(v), (std::vector<double>{0, 1, 2, 3, 4, 5, 10, 20}));
  U::vector_to_parameters(v * 2, {w, b});
  EXPECT_EQ(values(w), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(values(b), (std::vector<double>{20, 40}));
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_THROW(U::vector_to_parameters(zeros({7}), {w, b}), Error);
  EXPECT_THROW(U::vector_to_parameters(zeros({2, 4}), {w, b}), Error);
}

}  // namespace

TEST(CountParameters, TotalAndTrainable) {
  // The reference's MyModel(64, 128, 10): 64*128 + 128 + 128*10 + 10 = 9610 parameters.
  nn::Linear l1(64, 128), l2(128, 10);
  std::vector<Tensor> params = l1->parameters();
  for (const Tensor& p : l2->parameters()) params.push_back(p);
  EXPECT_EQ(U::count_parameters(params), 9610);
  l1->weight.requires_grad_(false);
  EXPECT_EQ(U::count_parameters(params, /*trainable_only=*/true), 9610 - 64 * 128);
}
