// embedding, linear, scaled_dot_product_attention, cosine_similarity and pairwise_distance
// against PyTorch 1.13 (golden/nn.json, family "layers"; attention against PyTorch 2's math path
// written out in the generator), and dropout by its statistics: the fraction zeroed is p, the
// survivors are scaled by 1 / (1 - p), a seed reproduces the mask, channels drop as a whole.
#include <cmath>

#include "ops/attention.h"
#include "ops/dropout.h"
#include "ops/embedding.h"
#include "ops/nn_golden.h"

namespace {

using namespace nn_golden;
namespace F = ember::nn::functional;

Outputs run_embedding(const Case& c) {
  const Tensor w = c["weight"];
  Outputs out;
  out["out"] = F::embedding(c["input"], w,
                            {.padding_idx = c.opt<int64_t>("padding_idx"),
                             .max_norm = c.opt<double>("max_norm"),
                             .norm_type = c.arg("norm_type", 2.0)});
  out["weight"] = w;  // renormalised in place with max_norm
  return out;
}

Outputs run_sdpa(const Case& c) {
  return {{"out", F::scaled_dot_product_attention(c["query"], c["key"], c["value"],
                                                  {.attn_mask = c["attn_mask"],
                                                   .is_causal = c.arg("is_causal", false),
                                                   .scale = c.opt<double>("scale")})}};
}

TEST(Layers, GoldenAgainstPyTorch) {
  run_family(
      "layers",
      {{"embedding", run_embedding},
       {"linear", [](const Case& c) {
          return Outputs{{"out", F::linear(c["input"], c["weight"], c["bias"])}};
        }},
       {"sdpa", run_sdpa},
       {"cosine_similarity", [](const Case& c) {
          return Outputs{{"out", F::cosine_similarity(c["x1"], c["x2"],
                                                      {.dim = c.arg<int64_t>("dim", 1),
                                                       .eps = c.arg("eps", 1e-8)})}};
        }},
       {"pairwise_distance", [](const Case& c) {
          return Outputs{{"out", F::pairwise_distance(c["x1"], c["x2"],
                                                      {.p = c.arg("p", 2.0),
                                                       .eps = c.arg("eps", 1e-6),
                                                       .keepdim = c.arg("keepdim", false)})}};
        }}});
}

// The spellings of docs/API.md compile and run as written there.
TEST(Layers, ApiSpellings) {
  const Tensor x = randn({4, 2, 3}), running_mean = zeros({2}), running_var = ones({2});
  const Tensor g = ones({2}), b = zeros({2});
  F::batch_norm(x, running_mean, running_var,
                {.weight = g, .bias = b, .training = true, .momentum = 0.1, .eps = 1e-5});
  const Tensor y = randn({3, 4});
  F::layer_norm(y, {4}, {.weight = ones({4}), .bias = zeros({4})});
  F::group_norm(x, 2, {.weight = g, .bias = b});
  const Tensor t = tensor({0, 3, -100});
  F::cross_entropy(y, t, {.ignore_index = -100, .label_smoothing = 0.1});
  F::mse_loss(y, y);
  EXPECT_EQ(F::embedding(tensor({1, 2}), randn({5, 3})).sizes(), std::vector<int64_t>({2, 3}));
  const Tensor q = randn({2, 5, 8});
  F::scaled_dot_product_attention(q, q, q, {.is_causal = true});
  namespace nnF = ember::nn::functional;  // also reachable through <ember/ember.h>
  EXPECT_EQ(nnF::cross_entropy(y, tensor({0, 1, 2})).dim(), 0);
}

// ── dropout ──────────────────────────────────────────────────────────────
double zero_fraction(const Tensor& t) { return (t == 0).to(kFloat64).mean().item<double>(); }

TEST(Dropout, FractionAndScale) {
  manual_seed(0);
  const Tensor x = ones({200, 500});
  for (double p : {0.1, 0.5, 0.8}) {
    const Tensor y = F::dropout(x, {.p = p});
    // 1e5 Bernoulli draws: the fraction is within ~5 standard deviations of p.
    EXPECT_NEAR(zero_fraction(y), p, 5 * std::sqrt(p * (1 - p) / 1e5)) << p;
    const Tensor kept = y.masked_select(y != 0);
    EXPECT_TRUE(allclose(kept, full_like(kept, 1.0 / (1 - p)))) << p;
    EXPECT_TRUE(x.equal(ones({200, 500})));  // not in place
  }
}

TEST(Dropout, SeedReproducesMask) {
  const Tensor x = randn({64, 33});
  manual_seed(7);
  const Tensor a = F::dropout(x, {.p = 0.3});
  manual_seed(7);
  const Tensor b = F::dropout(x, {.p = 0.3});
  EXPECT_TRUE(a.equal(b));
  Generator g1(123), g2(123);
  EXPECT_TRUE(F::dropout(x, {.p = 0.3, .generator = &g1})
                  .equal(F::dropout(x, {.p = 0.3, .generator = &g2})));
  EXPECT_FALSE(F::dropout(x, {.p = 0.3, .generator = &g1}).equal(a));
}

TEST(Dropout, EdgeCases) {
  const Tensor x = tensor({1.0, NAN, 3.0, -INFINITY});
  EXPECT_TRUE(F::dropout(x, {.p = 0.0}).is_same(x));          // p = 0: the input itself
  EXPECT_TRUE(F::dropout(x, {.p = 0.9, .training = false}).is_same(x));  // eval
  const Tensor z = F::dropout(x, {.p = 1.0});                 // x * 0: NaN stays NaN
  EXPECT_EQ(z.tolist<float>()[0], 0.0f);
  EXPECT_TRUE(std::isnan(z.tolist<float>()[1]));
  EXPECT_TRUE(std::isnan(z.tolist<float>()[3]));
  try {
    F::dropout(x, {.p = 1.5});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dropout probability has to be between 0 and 1, but got"),
              std::string::npos);
  }
}

TEST(Dropout, InPlace) {
  manual_seed(1);
  Tensor x = ones({1000});
  const Tensor y = F::dropout(x, {.p = 0.5, .inplace = true});
  EXPECT_TRUE(y.is_same(x));
  EXPECT_GT(zero_fraction(x), 0.4);
}

TEST(Dropout, WholeChannels) {
  manual_seed(2);
  const Tensor x = ones({8, 16, 5, 5});
  const Tensor y = F::dropout2d(x, {.p = 0.5});
  // Each (n, c) plane is all zero or all 2.
  const Tensor per = y.sum({2, 3});
  EXPECT_TRUE(((per == 0) | (per == 50)).all().item<bool>());
  EXPECT_GT(zero_fraction(per), 0.3);
  EXPECT_LT(zero_fraction(per), 0.7);
  const Tensor y1 = F::dropout1d(ones({16, 7}), {.p = 0.5});  // unbatched (C, L)
  EXPECT_TRUE(((y1.sum(1) == 0) | (y1.sum(1) == 14)).all().item<bool>());
  EXPECT_EQ(F::dropout3d(ones({2, 3, 2, 2, 2}), {.p = 0.5}).sizes(),
            std::vector<int64_t>({2, 3, 2, 2, 2}));
  EXPECT_THROW(F::dropout2d(ones({3}), {.p = 0.5}), Error);  // needs (N, C, ...)
}

TEST(Dropout, MaskForBackward) {
  manual_seed(3);
  const Tensor x = randn({10, 10});
  auto [y, noise] = F::dropout_forward(x, 0.25, true, false, false, nullptr);
  EXPECT_TRUE(allclose(y, x * noise));
  EXPECT_TRUE(((noise == 0) | (noise == 1 / 0.75)).all().item<bool>());
  auto [y2, none] = F::dropout_forward(x, 0.25, false, false, false, nullptr);
  EXPECT_FALSE(none.defined());
}

// ── attention: the math path against its own composite, and dropout ─────
TEST(Attention, CausalMatchesExplicitMask) {
  manual_seed(4);
  const Tensor q = randn({2, 3, 5, 8}), k = randn({2, 3, 5, 8}), v = randn({2, 3, 5, 4});
  const Tensor keep = ones({5, 5}, {.dtype = kBool}).tril();
  const Tensor a = F::scaled_dot_product_attention(q, k, v, {.is_causal = true});
  const Tensor b = F::scaled_dot_product_attention(q, k, v, {.attn_mask = keep});
  const Tensor c = F::scaled_dot_product_attention(
      q, k, v, {.attn_mask = zeros({5, 5}).masked_fill(keep.logical_not(), -INFINITY)});
  EXPECT_TRUE(allclose(a, b, 1e-6, 1e-6));
  EXPECT_TRUE(allclose(a, c, 1e-6, 1e-6));
  // The first query sees only the first key.
  EXPECT_TRUE(allclose(a.index({Slice(), Slice(), 0}), v.index({Slice(), Slice(), 0}), 1e-6, 1e-6));
  EXPECT_THROW(F::scaled_dot_product_attention(q, k, v, {.attn_mask = keep, .is_causal = true}),
               Error);
}

TEST(Attention, DropoutUsesTheGenerator) {
  const Tensor q = randn({1, 6, 8}), k = randn({1, 6, 8}), v = randn({1, 6, 8});
  Generator g1(5), g2(5);
  const Tensor a = F::scaled_dot_product_attention(q, k, v, {.dropout_p = 0.5, .generator = &g1});
  const Tensor b = F::scaled_dot_product_attention(q, k, v, {.dropout_p = 0.5, .generator = &g2});
  EXPECT_TRUE(a.equal(b));
  auto [out, attn] = F::scaled_dot_product_attention_forward(q, k, v, {}, 0.5, false, {}, &g1);
  EXPECT_TRUE(allclose(out, matmul(attn, v), 1e-6, 1e-6));
  EXPECT_GT(zero_fraction(attn), 0.2);
}

TEST(Embedding, BackwardSumsRows) {
  const Tensor idx = tensor({{1, 3}, {3, 0}});
  const Tensor g = ones({2, 2, 4});
  const Tensor gw = F::embedding_backward(g, idx, 5, 0, false);
  EXPECT_TRUE(gw.sum(1).equal(tensor({0.0, 4.0, 0.0, 8.0, 0.0})));  // row 0 is padding
  const Tensor gf = F::embedding_backward(g, idx, 5, std::nullopt, true);
  EXPECT_TRUE(gf.sum(1).equal(tensor({4.0, 4.0, 0.0, 4.0, 0.0})));  // divided by counts
}

}  // namespace
