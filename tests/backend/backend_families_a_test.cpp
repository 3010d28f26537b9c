// The backend seam for the norm, class-index loss, sort, embedding, random and creation
// families: a fake device without a family's kernel is refused by the op's name before anything
// runs, and one op per family runs through the fake device's own table (src/ops never touching
// its memory).
#include <ember/creation.h>
#include <ember/index_ops.h>
#include <ember/nn/functional/layers.h>
#include <ember/nn/functional/loss.h>

#include <optional>

#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/fake_device.h"
#include "ops/embedding.h"
#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;
using test::FakeDevice;
using test::kFakeDevice;

using test::kMissing;

// (2, 3) float32 on the fake device: the norms' and losses' input.
Tensor fake_matrix() { return FakeDevice::tensor<float>({1, 2, 3, 4, 5, 6}).view({2, 3}); }

// ── norm ──────────────────────────────────────────────────────────────────────────────────

TEST(BackendNorm, EveryNormWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  const Tensor x = fake_matrix();
  EXPECT_ERROR(F::batch_norm(x, Tensor(), Tensor(), {.training = true}),
               "[batch_norm] " + kMissing);
  EXPECT_ERROR(F::layer_norm(x, {3}), "[layer_norm] " + kMissing);
  EXPECT_ERROR(F::group_norm(x, 1), "[group_norm] " + kMissing);
  EXPECT_ERROR(F::rms_norm(x, {3}), "[rms_norm] " + kMissing);
}

TEST(BackendNorm, AWeightOnAnotherDeviceIsRefusedByName) {
  FakeDevice fake;
  EXPECT_ERROR(F::layer_norm(fake_matrix(), {3}, {.weight = ones({3})}),
               "[layer_norm] expected all tensors on one device, got cuda:0 and cpu");
}

void fake_layer_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                     const Tensor& w, const Tensor& b, int64_t M, int64_t N, double) {
  FakeDevice::calls().push_back("layer_norm");
  EXPECT_FALSE(w.defined());
  EXPECT_FALSE(b.defined());
  for (int64_t r = 0; r < M; ++r) {
    FakeDevice::data<float>(mean)[r] = float(r);
    FakeDevice::data<float>(rstd)[r] = 1;
    for (int64_t j = 0; j < N; ++j)
      FakeDevice::data<float>(y)[r * N + j] = FakeDevice::data<float>(x)[r * N + j] - 1;
  }
}

TEST(BackendNorm, LayerNormRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.norm.layer_norm = &fake_layer_norm;
  const Tensor y = F::layer_norm(fake_matrix(), {3});
  EXPECT_EQ(y.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(y), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"layer_norm"}));
}

// ── class-index losses ────────────────────────────────────────────────────────────────────

TEST(BackendLoss, ClassIndexLossesWithoutTheirKernelAreRefusedByName) {
  FakeDevice fake;
  const Tensor target = FakeDevice::tensor<int64_t>({0, 2});
  EXPECT_ERROR(F::cross_entropy(fake_matrix(), target), "[cross_entropy] " + kMissing);
  EXPECT_ERROR(F::nll_loss(fake_matrix(), target), "[nll_loss] " + kMissing);
  EXPECT_ERROR(F::cross_entropy(fake_matrix(), tensor({int64_t(0), int64_t(2)})),
               "[cross_entropy] expected all tensors on one device, got cuda:0 and cpu");
}

void fake_class_loss(const backend::ClassLossCall& c, const Tensor& out) {
  FakeDevice::calls().push_back(c.op);
  EXPECT_EQ(c.x.sizes(), IntArrayRef({2, 3, 1}));
  EXPECT_EQ(c.reduction, backend::LossReduction::Sum);
  float s = 0;  // Σ -x[r, target[r]]: nll_loss's sum
  for (int64_t r = 0; r < 2; ++r)
    s -= FakeDevice::data<float>(c.x)[r * 3 + FakeDevice::data<int64_t>(c.target)[r]];
  *FakeDevice::data<float>(out) = s;
}

TEST(BackendLoss, NllLossRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.loss.class_loss = &fake_class_loss;
  const Tensor loss =
      F::nll_loss(fake_matrix(), FakeDevice::tensor<int64_t>({0, 2}), {.reduction = "sum"});
  EXPECT_EQ(loss.device(), kFakeDevice);
  EXPECT_EQ(loss.dim(), 0);
  EXPECT_EQ(FakeDevice::values<float>(loss), (std::vector<float>{-7}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"nll_loss"}));
}

// ── sort ──────────────────────────────────────────────────────────────────────────────────

TEST(BackendSort, EveryOpOfTheFamilyWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({3, 1, 2});
  EXPECT_ERROR(sort(t), "[sort] " + kMissing);
  EXPECT_ERROR(argsort(t), "[sort] " + kMissing);
  EXPECT_ERROR(topk(t, 2), "[topk] " + kMissing);
  EXPECT_ERROR(kthvalue(t, 2), "[kthvalue] " + kMissing);
  EXPECT_ERROR(median(t), "[median] " + kMissing);
  EXPECT_ERROR(median(t, 0), "[median] " + kMissing);
  EXPECT_ERROR(nanmedian(t, 0), "[nanmedian] " + kMissing);
  EXPECT_ERROR(mode(t), "[mode] " + kMissing);
}

void fake_median_all(const char* op, const Tensor& out, const Tensor& self, bool ignore_nan) {
  FakeDevice::calls().push_back(op);
  EXPECT_TRUE(ignore_nan);
  *FakeDevice::data<float>(out) = FakeDevice::data<float>(self)[self.numel() - 1];
}

TEST(BackendSort, NanmedianRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.sort.median_all = &fake_median_all;
  const Tensor m = nanmedian(FakeDevice::tensor<float>({3, 1, 2}));
  EXPECT_EQ(m.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(m), (std::vector<float>{2}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"nanmedian"}));
}

// ── embedding ─────────────────────────────────────────────────────────────────────────────

TEST(BackendEmbedding, EmbeddingWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  const Tensor idx = FakeDevice::tensor<int64_t>({1, 0});
  EXPECT_ERROR(F::embedding(idx, fake_matrix()), "[embedding] " + kMissing);
  EXPECT_ERROR(F::embedding_backward(fake_matrix(), idx, 4, std::nullopt, false),
               "[embedding_backward] " + kMissing);
}

void fake_embedding(const char* op, const Tensor& out, const Tensor& weight,
                    const Tensor& indices) {
  FakeDevice::calls().push_back(op);
  const int64_t D = weight.size(1);
  for (int64_t i = 0; i < indices.numel(); ++i)
    for (int64_t d = 0; d < D; ++d)
      FakeDevice::data<float>(out)[i * D + d] =
          FakeDevice::data<float>(weight)[FakeDevice::data<int64_t>(indices)[i] * D + d];
}

TEST(BackendEmbedding, EmbeddingRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.embedding.embedding = &fake_embedding;
  const Tensor rows = F::embedding(FakeDevice::tensor<int64_t>({1, 0}), fake_matrix());
  EXPECT_EQ(rows.device(), kFakeDevice);
  EXPECT_EQ(rows.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(FakeDevice::values<float>(rows), (std::vector<float>{4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"embedding"}));
}

// ── random fills ──────────────────────────────────────────────────────────────────────────

TEST(BackendRandom, EveryFillWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  Tensor t = FakeDevice::tensor<float>({1, 2, 3});
  EXPECT_ERROR(uniform_(t), "[uniform_] " + kMissing);
  EXPECT_ERROR(normal_(t), "[normal_] " + kMissing);
  EXPECT_ERROR(random_(t, 0, 5), "[random_] " + kMissing);
  EXPECT_ERROR(bernoulli_(t, 0.5), "[bernoulli_] " + kMissing);
  EXPECT_EQ(FakeDevice::values<float>(t), (std::vector<float>{1, 2, 3}));  // nothing written
}

void fake_bernoulli(const char* op, const Tensor& t, double p, Generator*) {
  FakeDevice::calls().push_back(op);
  for (int64_t i = 0; i < t.numel(); ++i) FakeDevice::data<float>(t)[i] = p > 0.5 ? 1.0f : 0.0f;
}

TEST(BackendRandom, BernoulliRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.random.bernoulli = &fake_bernoulli;
  Tensor t = FakeDevice::tensor<float>({5, 6});
  const uint32_t version = t._version();
  bernoulli_(t, 0.75);
  EXPECT_EQ(FakeDevice::values<float>(t), (std::vector<float>{1, 1}));
  EXPECT_EQ(t._version(), version + 1);  // an in-place write
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"bernoulli_"}));
}

// ── creation ──────────────────────────────────────────────────────────────────────────────

TEST(BackendCreation, EveryFillWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  EXPECT_ERROR(zeros({2}, {.device = kFakeDevice}), "[zeros] " + kMissing);
  EXPECT_ERROR(arange(3, {.device = kFakeDevice}), "[arange] " + kMissing);
  EXPECT_ERROR(linspace(0, 1, 3, {.device = kFakeDevice}), "[linspace] " + kMissing);
  EXPECT_ERROR(logspace(0, 1, 3, 10.0, {.device = kFakeDevice}), "[linspace] " + kMissing);
}

void fake_arange(const Tensor& t, Scalar start, Scalar step) {
  FakeDevice::calls().push_back("arange");
  for (int64_t i = 0; i < t.numel(); ++i)
    FakeDevice::data<int64_t>(t)[i] = start.to<int64_t>() + i * step.to<int64_t>();
}

TEST(BackendCreation, ArangeRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.creation.arange = &fake_arange;
  const Tensor t = arange(1, 8, 3, {.device = kFakeDevice});
  EXPECT_EQ(t.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<int64_t>(t), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"arange"}));
}

}  // namespace
}  // namespace ember
