// torch::data::datasets::MNIST (torch/data/datasets/mnist.h): the split's two idx files, read
// with ember's idx reader, held to what LibTorch's reader insists on: the files directly in
// root under their raw names, uint8 images of the full split's count and 28 x 28, as many
// uint8 labels.
#include <filesystem>

#include "ember/data/idx.h"
#include "ember/error.h"
#include "torch/data/datasets/mnist.h"

namespace torch::data::datasets {

namespace {

constexpr int64_t kTrainSize = 60000;
constexpr int64_t kTestSize = 10000;
constexpr int64_t kSide = 28;

std::string join(std::string root, const char* file) {
  if (root.empty() || root.back() != '/') root += '/';
  return root + file;
}

Tensor read_file(const std::string& root, const char* file) {
  const std::string path = join(root, file);
  EMBER_CHECK(std::filesystem::is_regular_file(path), "MNIST", "cannot open ", path,
              ": no such file. LibTorch's MNIST reads the raw (uncompressed) idx files "
              "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
              "t10k-labels-idx1-ubyte directly in the root folder (",
              root, ")");
  return ember::data::read_idx(path);
}

}  // namespace

MNIST::MNIST(const std::string& root, Mode mode) {
  const bool train = mode == Mode::kTrain;
  const int64_t count = train ? kTrainSize : kTestSize;
  const char* image_file = train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte";
  const char* target_file = train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte";

  const Tensor images = read_file(root, image_file);
  EMBER_CHECK(images.dtype() == kUInt8 && images.sizes() == IntArrayRef({count, kSide, kSide}),
              "MNIST", join(root, image_file), ": expected ", count,
              " uint8 images of 28 x 28 (idx magic number 2051, dims [", count, ", 28, 28]), got ",
              images.dtype(), " ", images.sizes());
  const Tensor targets = read_file(root, target_file);
  EMBER_CHECK(targets.dtype() == kUInt8 && targets.sizes() == IntArrayRef({count}), "MNIST",
              join(root, target_file), ": expected ", count,
              " uint8 labels (idx magic number 2049, dims [", count, "]), got ", targets.dtype(),
              " ", targets.sizes());
  // LibTorch's scaling: the bytes as float32 divided by 255, which is not the same in every
  // last bit as multiplying by 1/255.
  images_ = images.to(kFloat32).div_(255).view({count, 1, kSide, kSide});
  targets_ = targets.to(kInt64);
}

Example<> MNIST::get(size_t index) {
  return {images_.select(0, int64_t(index)), targets_.select(0, int64_t(index))};
}

optional<size_t> MNIST::size() const { return size_t(images_.size(0)); }
bool MNIST::is_train() const noexcept { return images_.size(0) == kTrainSize; }
const Tensor& MNIST::images() const { return images_; }
const Tensor& MNIST::targets() const { return targets_; }

}  // namespace torch::data::datasets
