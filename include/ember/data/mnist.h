// MNIST and Fashion-MNIST (torchvision.datasets): the four idx files of a directory, gzipped or
// not, loaded once into memory. Samples are Example{image, label}: image uint8 (28, 28) passed
// through `transform` (e.g. ToTensor + Normalize), label an int64 scalar tensor.
#pragma once

#include <string>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/data/transforms.h"

namespace ember::data {

struct MNISTOptions {
  std::string root = "";  // empty: the dataset's default directory
  bool train = true;      // the 60,000-image training split; false: the 10,000 test images
  transforms::Transform transform = {};
  transforms::Transform target_transform = {};
};

class MNIST : public Dataset<Example> {
 public:
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/mnist";
  explicit MNIST(MNISTOptions options = {});

  int64_t size() const override { return images_.size(0); }
  Example get(int64_t index) const override;
  /// All images, uint8 (N, 28, 28), and labels, int64 (N).
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }
  const std::string& root() const { return root_; }

 protected:
  // `name` prefixes errors; `how_to_get` ends the missing-data message.
  MNIST(MNISTOptions options, const char* name, const char* default_root, const char* how_to_get);

 private:
  std::string root_;
  Tensor images_, targets_;
  transforms::Transform transform_, target_transform_;
};

class FashionMNIST : public MNIST {
 public:
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";
  explicit FashionMNIST(MNISTOptions options = {});
  /// The label names, index = label.
  static const std::vector<std::string>& classes();
};

}  // namespace ember::data
