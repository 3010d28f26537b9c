// LibTorch's MNIST dataset (./data, the raw idx files) as the MNIST examples use it:
// Normalize with MNIST's mean and stddev, Stack, a sequential and a random loader; the test
// split counted with and without drop_last; a missing folder's error.
#include <torch/torch.h>

#include <cstdio>

namespace data = torch::data;

template <typename Loader>
void print_batches(const char* name, Loader& loader, int count) {
  int seen = 0;
  for (data::Example<>& batch : loader) {
    std::printf(
        "%s batch %d: data [%lld, %lld, %lld, %lld] sum %.4f, targets sum %lld first %lld\n", name,
        seen, static_cast<long long>(batch.data.size(0)),
        static_cast<long long>(batch.data.size(1)), static_cast<long long>(batch.data.size(2)),
        static_cast<long long>(batch.data.size(3)), batch.data.sum().item<float>(),
        static_cast<long long>(batch.target.sum().item<int64_t>()),
        static_cast<long long>(batch.target.select(0, 0).item<int64_t>()));
    if (++seen == count) break;
  }
}

int main() {
  data::datasets::MNIST train("./data");
  std::printf(
      "train: size %zu, is_train %d, images [%lld, %lld, %lld, %lld] float32 %d\n",
      train.size().value(), train.is_train(), static_cast<long long>(train.images().size(0)),
      static_cast<long long>(train.images().size(1)),
      static_cast<long long>(train.images().size(2)),
      static_cast<long long>(train.images().size(3)), train.images().dtype() == torch::kFloat32);
  std::printf("train: images sum %.2f max %.4f, targets int64 %d sum %lld\n",
              train.images().sum().item<double>(), train.images().max().item<float>(),
              train.targets().dtype() == torch::kInt64,
              static_cast<long long>(train.targets().sum().item<int64_t>()));
  auto example = train.get(123);
  std::printf("example 123: data [%lld, %lld, %lld] sum %.4f, target %lld\n",
              static_cast<long long>(example.data.size(0)),
              static_cast<long long>(example.data.size(1)),
              static_cast<long long>(example.data.size(2)), example.data.sum().item<float>(),
              static_cast<long long>(example.target.item<int64_t>()));

  auto normalized =
      train.map(data::transforms::Normalize<>(0.1307, 0.3081)).map(data::transforms::Stack<>());
  std::printf("normalized size %zu\n", normalized.size().value());

  auto sequential =
      data::make_data_loader<data::samplers::SequentialSampler>(normalized, /*batch_size=*/64);
  print_batches("sequential", *sequential, 3);

  torch::manual_seed(1);
  auto random = data::make_data_loader(std::move(normalized),
                                       data::DataLoaderOptions().batch_size(64).workers(0));
  print_batches("random", *random, 3);
  print_batches("random again", *random, 2);

  data::datasets::MNIST test("./data", data::datasets::MNIST::Mode::kTest);
  std::printf("test: size %zu, is_train %d, targets sum %lld\n", test.size().value(),
              test.is_train(), static_cast<long long>(test.targets().sum().item<int64_t>()));
  auto stacked_test = test.map(data::transforms::Stack<>());
  for (bool drop_last : {false, true}) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        stacked_test, data::DataLoaderOptions().batch_size(1000 - 24).drop_last(drop_last));
    size_t batches = 0, examples = 0;
    double sum = 0;
    for (auto& batch : *loader) {
      ++batches;
      examples += batch.data.size(0);
      sum += batch.target.sum().item<int64_t>();
    }
    std::printf("test, drop_last %d: %zu batches, %zu examples, targets sum %.0f\n", drop_last,
                batches, examples, sum);
  }

  try {
    data::datasets::MNIST missing("./no-such-folder");
  } catch (const c10::Error&) {
    std::printf("a missing folder threw\n");
  }
  return 0;
}
