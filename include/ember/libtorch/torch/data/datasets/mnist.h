// The MNIST dataset as LibTorch reads it: the raw (uncompressed) idx files of one split in
// `root` (train-images-idx3-ubyte and train-labels-idx1-ubyte, or the t10k- pair), the full
// split of 60,000 or 10,000 images. Images are float32 [N, 1, 28, 28] in [0, 1] (the bytes
// divided by 255), targets int64 [N]; get(i) returns image i [1, 28, 28] with its target.
#pragma once

#include <cstddef>
#include <string>

#include "torch/data/datasets/base.h"
#include "torch/data/example.h"
#include "torch/types.h"

namespace torch::data::datasets {

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  /// Reads the split; a missing or malformed file is an ember::Error naming its path.
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  Example<> get(size_t index) override;
  optional<size_t> size() const override;
  /// Whether this is the training split (60,000 images).
  bool is_train() const noexcept;
  const Tensor& images() const;
  const Tensor& targets() const;

 private:
  Tensor images_, targets_;
};

}  // namespace torch::data::datasets
