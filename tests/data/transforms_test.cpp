// Transforms: ToTensor scaling, Normalize values, flips, crops with padding, translations, Compose
// and Lambda; and that inside DataLoader workers they run per worker, reproducibly for a seed.
#include <gtest/gtest.h>

#include <ember/creation.h>
#include <ember/data.h>

#include <cmath>
#include <set>
#include <vector>

using namespace ember;
using namespace ember::data;
using namespace ember::data::transforms;

namespace {

// (1, 6, 5) float image with pixel (y, x) = 10 * y + x + 1 (no zeros, so fill is visible).
Tensor ramp() {
  std::vector<float> v;
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 5; ++x) v.push_back(float(10 * y + x + 1));
  return from_vector(v, std::vector<int64_t>{1, 6, 5});
}

float at(const Tensor& t, int64_t c, int64_t y, int64_t x) {
  return t.index({c, y, x}).item<float>();
}

TEST(Transforms, ToTensorScalesBytesAndAddsTheChannel) {
  Tensor img = tensor({{0, 255}, {51, 102}}).to(kUInt8);
  Tensor t = ToTensor()(img);
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_FLOAT_EQ(at(t, 0, 0, 1), 1.0f);
  EXPECT_FLOAT_EQ(at(t, 0, 1, 0), 0.2f);
  EXPECT_THROW(ToTensor()(zeros({2, 2}, {.dtype = kInt32})), Error);
}

TEST(Transforms, NormalizePerChannel) {
  Tensor x = ones({2, 2, 2});
  x.index_put_({1}, 3.0);
  Tensor y = Normalize({0.5, 1.0}, {0.25, 2.0})(x);
  EXPECT_FLOAT_EQ(at(y, 0, 1, 1), 2.0f);
  EXPECT_FLOAT_EQ(at(y, 1, 0, 0), 1.0f);
  EXPECT_FLOAT_EQ(at(x, 0, 0, 0), 1.0f);  // not in place by default
  EXPECT_THROW(Normalize({0.5}, {0.0}), Error);
  EXPECT_THROW(Normalize({0.1, 0.2, 0.3}, {1, 1, 1})(x), Error);  // 3 values, 2 channels
  // Fashion-MNIST's constants, one value broadcasting over the channel.
  Tensor f = Normalize({0.2860}, {0.3530})(full({1, 2, 2}, 0.2860));
  EXPECT_NEAR(f.abs().max().item<float>(), 0.0f, 1e-6);
}

TEST(Transforms, HorizontalFlip) {
  Tensor x = ramp();
  Tensor f = RandomHorizontalFlip(1.0)(x);
  for (int64_t y = 0; y < 6; ++y)
    for (int64_t c = 0; c < 5; ++c) EXPECT_EQ(at(f, 0, y, c), at(x, 0, y, 4 - c));
  EXPECT_TRUE(RandomHorizontalFlip(0.0)(x).equal(x));
  // p = 0.5 flips some and not others.
  manual_seed(0);
  int flipped = 0;
  for (int i = 0; i < 200; ++i) flipped += !RandomHorizontalFlip()(x).equal(x);
  EXPECT_GT(flipped, 60);
  EXPECT_LT(flipped, 140);
  // Works on uint8 (before ToTensor) too.
  Tensor b = tensor({{1, 2, 3}}).to(kUInt8);
  EXPECT_EQ(RandomHorizontalFlip(1.0)(b).index({0, 0}).item<int64_t>(), 3);
}

TEST(Transforms, RandomCropIsAWindowOfThePaddedImage) {
  Tensor x = ramp();
  manual_seed(1);
  std::set<std::pair<int64_t, int64_t>> offsets;
  for (int trial = 0; trial < 100; ++trial) {
    Tensor c = RandomCrop({6, 5}, {.padding = 2, .fill = -1})(x);
    ASSERT_EQ(c.sizes(), (std::vector<int64_t>{1, 6, 5}));
    // Find the offset from the first in-image pixel: every pixel must match in[y+dy][x+dx].
    bool matched = false;
    for (int64_t dy = -2; dy <= 2 && !matched; ++dy) {
      for (int64_t dx = -2; dx <= 2 && !matched; ++dx) {
        bool ok = true;
        for (int64_t y = 0; y < 6 && ok; ++y) {
          for (int64_t xx = 0; xx < 5 && ok; ++xx) {
            const int64_t sy = y + dy, sx = xx + dx;
            const float want = (sy < 0 || sy >= 6 || sx < 0 || sx >= 5) ? -1.0f : at(x, 0, sy, sx);
            ok = at(c, 0, y, xx) == want;
          }
        }
        if (ok) matched = true, offsets.insert({dy, dx});
      }
    }
    ASSERT_TRUE(matched) << c;
  }
  EXPECT_GT(offsets.size(), 10u);  // all 25 offsets are possible
  Tensor small = RandomCrop(3)(x);
  EXPECT_EQ(small.sizes(), (std::vector<int64_t>{1, 3, 3}));
  EXPECT_THROW(RandomCrop(7)(x), Error);
  EXPECT_EQ(RandomCrop(8, {.pad_if_needed = true})(x).sizes(), (std::vector<int64_t>{1, 8, 8}));
}

TEST(Transforms, RandomAffineTranslatesWithinBounds) {
  Tensor x = ramp();
  manual_seed(2);
  int moved = 0;
  for (int trial = 0; trial < 100; ++trial) {
    Tensor t = RandomAffine({.translate = {0.4, 0.34}})(x);  // up to 2 px each way
    ASSERT_EQ(t.sizes(), x.sizes());
    bool found = false;
    for (int64_t ty = -2; ty <= 2 && !found; ++ty) {
      for (int64_t tx = -2; tx <= 2 && !found; ++tx) {
        bool ok = true;
        for (int64_t y = 0; y < 6 && ok; ++y) {
          for (int64_t c = 0; c < 5 && ok; ++c) {
            const int64_t sy = y - ty, sx = c - tx;
            const float want = (sy < 0 || sy >= 6 || sx < 0 || sx >= 5) ? 0.0f : at(x, 0, sy, sx);
            ok = at(t, 0, y, c) == want;
          }
        }
        if (ok) found = true, moved += (tx != 0 || ty != 0);
      }
    }
    ASSERT_TRUE(found) << t;
  }
  EXPECT_GT(moved, 50);
  EXPECT_THROW(RandomAffine({.translate = {1.5, 0}}), Error);
}

TEST(Transforms, ComposeAndLambdaApplyInOrder) {
  Transform t = Compose({Lambda([](const Tensor& x) { return x.add(1); }),
                         Lambda([](const Tensor& x) { return x.mul(10); })});
  EXPECT_EQ(t(tensor(1.0)).item<float>(), 20.0f);
}

// Tagged samples: each image is its index, flipped or not by the transform.
struct Images : Dataset<Example> {
  Transform transform;
  int64_t size() const override { return 64; }
  Example get(int64_t i) const override {
    Tensor img = arange(4).to(kFloat32).view({1, 1, 4}).add(double(i) * 4);
    return {transform(img), tensor(i)};
  }
};

TEST(Transforms, RunInWorkersReproduciblyForASeed) {
  Images ds;
  std::set<int64_t> worker_ids;
  std::mutex m;
  ds.transform = Compose({RandomHorizontalFlip(), Lambda([&](const Tensor& x) {
                            auto info = get_worker_info();
                            std::lock_guard g(m);
                            worker_ids.insert(info ? info->id : -1);
                            return x;
                          })});
  auto run = [&](uint64_t seed) {
    DataLoader loader(ds, {.batch_size = 8, .shuffle = true, .num_workers = 2, .seed = seed});
    std::vector<Tensor> out;
    for (auto& [data, target] : loader) out.push_back(data.clone());
    return out;
  };
  auto a = run(3), b = run(3), c = run(4);
  ASSERT_EQ(a.size(), 8u);
  bool same = true, differ = false;
  for (size_t i = 0; i < a.size(); ++i) {
    same &= a[i].equal(b[i]);
    differ |= !a[i].equal(c[i]);
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differ);
  EXPECT_EQ(worker_ids, (std::set<int64_t>{0, 1}));  // never the consumer thread
}

}  // namespace
