// Image transforms for (C, H, W) tensors, as torchvision.transforms: ToTensor, Normalize,
// RandomHorizontalFlip, RandomCrop (with padding), RandomAffine (translation only), Compose and
// Lambda. They run inside DataLoader workers; random ones draw from worker_generator(), so a
// loader seed makes them reproducible.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember::data::transforms {

/// Any image -> image function; every transform below converts to it.
using Transform = std::function<Tensor(const Tensor&)>;

/// uint8 (H, W) or (C, H, W) -> float32 (C, H, W) in [0, 1] (divided by 255); floating input is
/// converted to float32 unscaled, as torchvision does for non-byte images.
struct ToTensor {
  Tensor operator()(const Tensor& image) const;
};

/// (x - mean[c]) / std[c] per channel of a float (..., C, H, W) tensor; one value broadcasts.
struct Normalize {
  Normalize(std::vector<double> mean, std::vector<double> std, bool inplace = false);
  Tensor operator()(const Tensor& image) const;

 private:
  std::vector<float> mean_, inv_std_;
  bool inplace_;
};

/// Mirrors the last dimension with probability p.
struct RandomHorizontalFlip {
  explicit RandomHorizontalFlip(double p = 0.5) : p_(p) {}
  Tensor operator()(const Tensor& image) const;

 private:
  double p_;
};

struct RandomCropOptions {
  int64_t padding = 0;  // constant-filled border added to every side first
  bool pad_if_needed = false;
  double fill = 0;
};

/// A random (height, width) window, after padding.
struct RandomCrop {
  RandomCrop(std::array<int64_t, 2> size, RandomCropOptions options = {});
  explicit RandomCrop(int64_t size, RandomCropOptions options = {})
      : RandomCrop({size, size}, options) {}
  Tensor operator()(const Tensor& image) const;

 private:
  std::array<int64_t, 2> size_;
  RandomCropOptions options_;
};

struct RandomAffineOptions {
  std::array<double, 2> translate = {0, 0};  // max shift as fractions of (width, height)
  double fill = 0;
};

/// torchvision's RandomAffine(degrees=0, translate=...): a whole-pixel shift by up to
/// translate * size in each direction, uncovered pixels set to fill.
struct RandomAffine {
  explicit RandomAffine(RandomAffineOptions options);
  Tensor operator()(const Tensor& image) const;

 private:
  RandomAffineOptions options_;
};

/// Applies the transforms in order.
Transform Compose(std::vector<Transform> transforms);
/// Any function as a transform.
Transform Lambda(std::function<Tensor(const Tensor&)> fn);

}  // namespace ember::data::transforms
