// The backend seam for the gather, index, random/creation, rearrange, nn and optimizer families:
// a fake device without a family's kernel is refused by the op's name before anything runs, and
// one op per family runs through the fake device's own table (src/ops never touching its memory).
#include <ember/creation.h>
#include <ember/index_ops.h>
#include <ember/math.h>

#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/fake_device.h"
#include "test_support.h"

namespace ember {
namespace {

using test::FakeDevice;
using test::kFakeDevice;

using test::kMissing;

// ── gather family ─────────────────────────────────────────────────────────────────────────

TEST(BackendGather, EveryOpOfTheFamilyWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  Tensor t = FakeDevice::tensor<float>({1, 2, 3});
  const Tensor i = FakeDevice::tensor<int64_t>({0, 2});
  const Tensor m = FakeDevice::tensor<bool>({true, false, true});
  EXPECT_ERROR(gather(t, 0, i), "[gather] " + kMissing);
  EXPECT_ERROR(t.scatter_(0, i, t), "[scatter] " + kMissing);
  EXPECT_ERROR(t.scatter_add_(0, i, t), "[scatter_add] " + kMissing);
  EXPECT_ERROR(scatter_reduce_(t, 0, i, t, "amax"), "[scatter_reduce] " + kMissing);
  EXPECT_ERROR(index_select(t, 0, i), "[index_select] " + kMissing);  // its index check first
  EXPECT_ERROR(take(t, i), "[take] " + kMissing);
  EXPECT_ERROR(masked_select(t, m), "[masked_select] " + kMissing);
  EXPECT_ERROR(masked_scatter_(t, m, t), "[masked_scatter_] " + kMissing);
  EXPECT_ERROR(nonzero(t), "[nonzero] " + kMissing);
  EXPECT_EQ(FakeDevice::values<float>(t), (std::vector<float>{1, 2, 3}));  // nothing written
}

TEST(BackendGather, AnIndexOnAnotherDeviceIsRefusedByName) {
  FakeDevice fake;
  const Tensor t = FakeDevice::tensor<float>({1, 2, 3});
  EXPECT_ERROR(gather(t, 0, tensor({int64_t(0)})),
               "[gather] expected all tensors on one device, got cuda:0 and cpu");
  EXPECT_ERROR(gather(ones({3}), 0, FakeDevice::tensor<int64_t>({0})),
               "[gather] expected all tensors on one device, got cpu and cuda:0");
}

void fake_take(const Tensor& out, const Tensor& self, const Tensor& index) {
  FakeDevice::calls().push_back("take");
  for (int64_t j = 0; j < index.numel(); ++j)
    FakeDevice::data<float>(out)[j] = FakeDevice::data<float>(self)[FakeDevice::data<int64_t>(index)[j]];
}
Tensor fake_nonzero(const Tensor& t) {
  FakeDevice::calls().push_back("nonzero");
  std::vector<int64_t> at;
  for (int64_t j = 0; j < t.numel(); ++j)
    if (FakeDevice::data<float>(t)[j] != 0) at.push_back(j);
  return FakeDevice::tensor<int64_t>(at).reshape({-1, 1});
}

TEST(BackendGather, OpsRunTheKernelsOfTheirDevice) {
  FakeDevice fake;
  fake.table.gather.take = &fake_take;
  fake.table.gather.nonzero = &fake_nonzero;
  const Tensor t = FakeDevice::tensor<float>({5, 0, 7});
  const Tensor taken = take(t, FakeDevice::tensor<int64_t>({2, 0}));
  EXPECT_EQ(taken.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(taken), (std::vector<float>{7, 5}));
  const Tensor nz = nonzero(t);
  EXPECT_EQ(nz.sizes(), IntArrayRef({2, 1}));
  EXPECT_EQ(FakeDevice::values<int64_t>(nz), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"take", "nonzero"}));
}

// ── advanced indexing ─────────────────────────────────────────────────────────────────────

TEST(BackendIndex, AdvancedIndexingWithoutItsKernelIsRefusedByName) {
  FakeDevice fake;
  Tensor t = FakeDevice::tensor<float>({1, 2, 3});
  const Tensor i = FakeDevice::tensor<int64_t>({2, 0});
  EXPECT_ERROR(t.index({i}), "[index] " + kMissing);
  EXPECT_ERROR(t.index_put_({i}, FakeDevice::tensor<float>({5, 6})), "[index_put_] " + kMissing);
  EXPECT_EQ(t.index({1}).device(), kFakeDevice);  // basic indexing is a view: no kernel
}

void fake_index(const Tensor& out, const backend::AdvancedIndex& at) {
  FakeDevice::calls().push_back("index");
  const int64_t* i = FakeDevice::data<int64_t>(at.indices[0]);
  for (int64_t j = 0; j < out.numel(); ++j)
    FakeDevice::data<float>(out)[j] = FakeDevice::data<float>(at.src)[i[j] * at.src.stride(0)];
}

TEST(BackendIndex, IndexRunsTheKernelOfItsDevice) {
  FakeDevice fake;
  fake.table.index.index = &fake_index;
  const Tensor t = FakeDevice::tensor<float>({5, 6, 7});
  const Tensor picked = t.index({FakeDevice::tensor<int64_t>({2, 0, 2})});
  EXPECT_EQ(picked.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values<float>(picked), (std::vector<float>{7, 5, 7}));
  EXPECT_EQ(FakeDevice::calls(), (std::vector<std::string>{"index"}));
}

}  // namespace
}  // namespace ember
