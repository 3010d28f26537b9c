// LibTorch (C++, 1.13) twin of ember-train-fashion-mnist for bench/train_compare.py: the same
// CNN, loop and hyper-parameters as bench/train_torch.py, data held in memory and shuffled per
// epoch. Prints one JSON line per epoch (train seconds with data loading, images/s, accuracy).
//   train_libtorch [epochs] [threads] [data_dir] [seed]
#include <torch/torch.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr double kMean = 0.2860, kStd = 0.3530;

// An idx file (gzipped): its dims and bytes.
torch::Tensor read_idx(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> bytes;
  unsigned char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  gzclose(f);
  const int dims = bytes.at(3);
  std::vector<int64_t> shape;
  for (int i = 0; i < dims; ++i) {
    const unsigned char* p = bytes.data() + 4 + 4 * i;
    shape.push_back(int64_t(p[0]) << 24 | int64_t(p[1]) << 16 | int64_t(p[2]) << 8 | p[3]);
  }
  const size_t offset = 4 + 4 * size_t(dims);
  return torch::from_blob(bytes.data() + offset, shape, torch::kUInt8).clone();
}

std::pair<torch::Tensor, torch::Tensor> load(const std::string& dir, const std::string& split) {
  torch::Tensor x = read_idx(dir + "/" + split + "-images-idx3-ubyte.gz").to(torch::kFloat32);
  x = (x / 255 - kMean) / kStd;
  return {x.unsqueeze(1), read_idx(dir + "/" + split + "-labels-idx1-ubyte.gz").to(torch::kInt64)};
}

}  // namespace

int main(int argc, char** argv) {
  const int epochs = argc > 1 ? std::stoi(argv[1]) : 5;
  at::set_num_threads(argc > 2 ? std::stoi(argv[2]) : 2);
  const std::string dir = argc > 3 ? argv[3] : "/usr/share/datasets/fashion-mnist";
  torch::manual_seed(argc > 4 ? std::stoi(argv[4]) : 0);
  auto [train_x, train_y] = load(dir, "train");
  auto [test_x, test_y] = load(dir, "t10k");
  namespace nn = torch::nn;
  nn::Sequential model(
      nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1)), nn::BatchNorm2d(32), nn::ReLU(),
      nn::MaxPool2d(2), nn::Conv2d(nn::Conv2dOptions(32, 64, 3).padding(1)), nn::BatchNorm2d(64),
      nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(3136, 128), nn::ReLU(),
      nn::Dropout(0.25), nn::Linear(128, 10));
  torch::optim::AdamW opt(model->parameters(),
                          torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
  const int64_t n = train_x.size(0), batch = 128;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    // CosineAnnealingLR(T_max = epochs), closed form (LibTorch 1.13 has no such scheduler).
    const double lr = 1e-3 * (1 + std::cos(M_PI * epoch / epochs)) / 2;
    for (auto& group : opt.param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    model->train();
    const auto start = std::chrono::steady_clock::now();
    const torch::Tensor order = torch::randperm(n);
    for (int64_t b = 0; b < n; b += batch) {
      const torch::Tensor idx = order.slice(0, b, std::min(n, b + batch));
      const torch::Tensor x = train_x.index_select(0, idx), y = train_y.index_select(0, idx);
      opt.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
      opt.step();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    model->eval();
    int64_t correct = 0;
    {
      torch::NoGradGuard no_grad;
      for (int64_t b = 0; b < test_x.size(0); b += 256) {
        const int64_t e = std::min(test_x.size(0), b + 256);
        correct += (model->forward(test_x.slice(0, b, e)).argmax(1) == test_y.slice(0, b, e))
                       .sum()
                       .item<int64_t>();
      }
    }
    std::printf("{\"epoch\": %d, \"train_seconds\": %.4f, \"images_per_second\": %.1f, "
                "\"accuracy\": %.4f}\n",
                epoch, seconds, double(n) / seconds, double(correct) / double(test_x.size(0)));
    std::fflush(stdout);
  }
}
