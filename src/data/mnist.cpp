// MNIST / Fashion-MNIST: find the split's two idx files (<root>/<file>[.gz], or torchvision's
// <root>/<Name>/raw/ layout), check they agree, keep them in memory.
#include "ember/data/mnist.h"

#include <filesystem>

#include "ember/data/idx.h"
#include "ember/error.h"

namespace ember::data {

namespace fs = std::filesystem;

namespace {

// The first existing candidate for `file` (plain before .gz); empty when none.
std::string find_file(const std::string& root, const char* subdir, const std::string& file) {
  for (const fs::path& dir : {fs::path(root), fs::path(root) / subdir / "raw"}) {
    for (const char* ext : {"", ".gz"}) {
      const fs::path p = dir / (file + ext);
      if (fs::is_regular_file(p)) return p.string();
    }
  }
  return {};
}

}  // namespace

MNIST::MNIST(MNISTOptions options) : MNIST(std::move(options), "MNIST", kDefaultRoot,
    "download train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz "
    "and t10k-labels-idx1-ubyte.gz (http://yann.lecun.com/exdb/mnist/) into it, or pass .root") {}

MNIST::MNIST(MNISTOptions options, const char* name, const char* default_root,
             const char* how_to_get)
    : root_(options.root.empty() ? default_root : options.root),
      transform_(std::move(options.transform)),
      target_transform_(std::move(options.target_transform)) {
  const std::string prefix = options.train ? "train" : "t10k";
  const std::string image_file = prefix + "-images-idx3-ubyte";
  const std::string label_file = prefix + "-labels-idx1-ubyte";
  EMBER_CHECK(fs::is_directory(root_), name, "dataset directory ", root_, " not found: expected ",
              image_file, "[.gz] and ", label_file, "[.gz] there; ", how_to_get);
  const std::string image_path = find_file(root_, name, image_file);
  const std::string label_path = find_file(root_, name, label_file);
  for (const auto& [path, file] : {std::pair{image_path, image_file}, {label_path, label_file}}) {
    EMBER_CHECK(!path.empty(), name, "missing ", file, "[.gz] in ", root_, "; ", how_to_get);
  }
  images_ = read_idx(image_path);
  EMBER_CHECK(images_.dtype() == kUInt8 && images_.dim() == 3 && images_.size(1) == 28 &&
                  images_.size(2) == 28,
              name, image_path, ": expected uint8 images of shape (N, 28, 28), got ",
              images_.dtype(), " ", images_.sizes());
  const Tensor labels = read_idx(label_path);
  EMBER_CHECK(labels.dtype() == kUInt8 && labels.dim() == 1, name, label_path,
              ": expected a 1-D uint8 label file, got ", labels.dtype(), " ", labels.sizes());
  EMBER_CHECK(labels.size(0) == images_.size(0), name, "the split has ", images_.size(0),
              " images (", image_path, ") but ", labels.size(0), " labels (", label_path, ")");
  const uint8_t* l = labels.data_ptr<uint8_t>();
  for (int64_t i = 0; i < labels.size(0); ++i) {
    EMBER_CHECK(l[i] < 10, name, label_path, ": label ", int(l[i]), " at index ", i,
                " is outside 0..9");
  }
  targets_ = labels.to(kInt64);
}

Example MNIST::get(int64_t index) const {
  const int64_t i = checked_index("MNIST", index, size());
  Tensor image = images_.select(0, i);  // (28, 28) view
  Tensor target = targets_.select(0, i);
  if (transform_) image = transform_(image);
  if (target_transform_) target = target_transform_(target);
  return {std::move(image), std::move(target)};
}

FashionMNIST::FashionMNIST(MNISTOptions options)
    : MNIST(std::move(options), "FashionMNIST", kDefaultRoot,
            "install it with scripts/bootstrap.sh (Debian package dataset-fashion-mnist, which "
            "puts the files in /usr/share/datasets/fashion-mnist), or pass .root = a directory "
            "holding them") {}

const std::vector<std::string>& FashionMNIST::classes() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress",
                                                 "Coat",        "Sandal",  "Shirt",    "Sneaker",
                                                 "Bag",         "Ankle boot"};
  return names;
}

}  // namespace ember::data
