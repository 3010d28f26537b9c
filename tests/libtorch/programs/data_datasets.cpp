// LibTorch's data API on datasets of one's own: a Dataset with get/size, TensorDataset, the
// transforms (Stack, Normalize per channel, Lambda, TensorLambda, BatchLambda, Collate, a
// TensorTransform and a Collation of one's own), the samplers used directly and through
// make_data_loader, drop_last, a stream and a stateful dataset, and the iterator spelled out.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace data = torch::data;

// Example i: data [2] filled with i * i, target i % 3.
struct Squares : data::datasets::Dataset<Squares> {
  data::Example<> get(size_t index) override {
    return {torch::full({2}, static_cast<double>(index * index)),
            torch::tensor(static_cast<int64_t>(index % 3))};
  }
  torch::optional<size_t> size() const override { return 10; }
};

// The spellings of LibTorch's custom-dataset tutorials: torch::data::Dataset, examples built
// from tensors kept in vectors.
class Pairs : public torch::data::Dataset<Pairs> {
 public:
  Pairs() {
    for (int64_t i = 0; i < 5; ++i) {
      inputs_.push_back(torch::linspace(0, 1, 3) * static_cast<double>(i));
      labels_.push_back(torch::tensor(i * 10));
    }
  }
  torch::data::Example<> get(size_t index) override {
    return {inputs_.at(index), labels_.at(index)};
  }
  torch::optional<size_t> size() const override { return inputs_.size(); }

 private:
  std::vector<torch::Tensor> inputs_, labels_;
};

// A BatchDataset of one's own: a whole batch per request of indices.
struct Ranges : torch::data::BatchDataset<Ranges, torch::Tensor> {
  torch::Tensor get_batch(c10::ArrayRef<size_t> indices) override {
    std::vector<int64_t> values(indices.begin(), indices.end());
    return torch::tensor(values.size() ? static_cast<double>(values.back()) : 0.0) +
           static_cast<double>(indices.size()) * 100;
  }
  torch::optional<size_t> size() const override { return 7; }
};

// Data doubled, target unchanged.
struct Twice : data::transforms::TensorTransform<> {
  torch::Tensor operator()(torch::Tensor input) override { return input * 2; }
};

// A batch of examples collated into one: the data summed per example, the targets stacked.
struct SumCollation : data::transforms::Collation<data::Example<>> {
  data::Example<> apply_batch(std::vector<data::Example<>> examples) override {
    std::vector<torch::Tensor> sums, targets;
    for (auto& e : examples) {
      sums.push_back(e.data.sum());
      targets.push_back(e.target);
    }
    return {torch::stack(sums), torch::stack(targets)};
  }
};

// A stream: asked for a number of examples, it returns that many counting on from the last.
struct Counter : data::datasets::StreamDataset<Counter> {
  std::vector<data::Example<>> get_batch(size_t count) override {
    std::vector<data::Example<>> batch;
    for (size_t i = 0; i < count; ++i, ++next) {
      batch.emplace_back(torch::tensor(static_cast<double>(next)), torch::tensor(next));
    }
    return batch;
  }
  torch::optional<size_t> size() const override { return torch::nullopt; }
  int64_t next = 0;
};

// Squares whose size is unknown.
struct Unsized : data::datasets::Dataset<Unsized> {
  data::Example<> get(size_t index) override { return Squares().get(index); }
  torch::optional<size_t> size() const override { return torch::nullopt; }
};

// A stateful dataset of 7 values handed out batch_size at a time until none are left.
struct Stock : data::datasets::StatefulDataset<Stock, std::vector<double>> {
  torch::optional<std::vector<double>> get_batch(size_t count) override {
    if (left == 0) return torch::nullopt;
    std::vector<double> batch;
    for (; count > 0 && left > 0; --count, --left) batch.push_back(static_cast<double>(left));
    return batch;
  }
  torch::optional<size_t> size() const override { return 7; }
  void reset() override { left = 7; }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}
  size_t left = 7;
};

void print_indices(const char* name, const torch::optional<std::vector<size_t>>& indices) {
  std::printf("%s:", name);
  if (!indices)
    std::printf(" none");
  else
    for (size_t i : *indices) std::printf(" %zu", i);
  std::printf("\n");
}

int main() {
  Squares squares;
  std::printf("squares: size %zu, get(3) %.1f %lld\n", squares.size().value(),
              squares.get(3).data.sum().item<float>(),
              static_cast<long long>(squares.get(3).target.item<int64_t>()));

  // Batches as vectors of examples (no collation), in order.
  auto plain = data::make_data_loader<data::samplers::SequentialSampler>(squares, 4);
  for (auto& batch : *plain) {
    float sum = 0;
    for (auto& example : batch) sum += example.data.sum().item<float>();
    std::printf("plain batch: %zu examples, data sum %.1f\n", batch.size(), sum);
  }
  std::printf("plain options: batch_size %zu workers %zu max_jobs %zu ordering %d drop_last %d\n",
              plain->options().batch_size, plain->options().workers, plain->options().max_jobs,
              plain->options().enforce_ordering, plain->options().drop_last);

  // Stacked, with drop_last: 10 examples in batches of 3 leave out the tenth.
  auto stacked = data::make_data_loader<data::samplers::SequentialSampler>(
      squares.map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(3).drop_last(true));
  for (auto& batch : *stacked) {
    std::printf("stacked: data [%lld, %lld] sum %.1f, targets sum %lld\n",
                static_cast<long long>(batch.data.size(0)),
                static_cast<long long>(batch.data.size(1)), batch.data.sum().item<float>(),
                static_cast<long long>(batch.target.sum().item<int64_t>()));
  }

  // The transforms chained: a Lambda on each example, a TensorTransform of one's own, a
  // TensorLambda, then a Collation of one's own.
  auto chained = Squares()
                     .map(data::transforms::Lambda<data::Example<>>([](data::Example<> e) {
                       e.target = e.target + 10;
                       return e;
                     }))
                     .map(Twice())
                     .map(data::transforms::TensorLambda<>([](torch::Tensor t) { return t + 1; }))
                     .map(SumCollation());
  std::printf("chained dataset size %zu\n", chained.size().value());
  auto chained_loader =
      data::make_data_loader<data::samplers::SequentialSampler>(std::move(chained), 5);
  for (auto& batch : *chained_loader) {
    std::printf("chained: data sum %.1f first %.1f, targets sum %lld\n",
                batch.data.sum().item<float>(), batch.data.select(0, 0).item<float>(),
                static_cast<long long>(batch.target.sum().item<int64_t>()));
  }

  // BatchLambda and Collate on whole batches.
  auto counted =
      Squares()
          .map(data::transforms::BatchLambda<std::vector<data::Example<>>>(
              [](std::vector<data::Example<>> batch) {
                batch.pop_back();
                return batch;
              }))
          .map(data::transforms::Collate<data::Example<>>([](std::vector<data::Example<>> b) {
            return data::Example<>(torch::tensor(static_cast<int64_t>(b.size())), b.front().target);
          }));
  auto counted_loader = data::make_data_loader<data::samplers::SequentialSampler>(counted, 4);
  for (auto& batch : *counted_loader) {
    std::printf("collated: %lld examples kept, first target %lld\n",
                static_cast<long long>(batch.data.item<int64_t>()),
                static_cast<long long>(batch.target.item<int64_t>()));
  }

  auto pairs = data::make_data_loader<data::samplers::SequentialSampler>(
      Pairs().map(data::transforms::Stack<>()), 2);
  for (auto& batch : *pairs) {
    std::printf("pairs: data [%lld, %lld] sum %.4f, targets sum %lld\n",
                static_cast<long long>(batch.data.size(0)),
                static_cast<long long>(batch.data.size(1)), batch.data.sum().item<float>(),
                static_cast<long long>(batch.target.sum().item<int64_t>()));
  }
  auto ranges = data::make_data_loader<data::samplers::SequentialSampler>(Ranges(), 3);
  for (torch::Tensor& batch : *ranges) std::printf("ranges: %.1f\n", batch.item<float>());

  // TensorDataset: rows of a tensor, and of a list of tensors, through a random sampler.
  torch::manual_seed(3);
  auto rows = data::datasets::TensorDataset(torch::arange(20).view({10, 2}));
  std::printf("rows: size %zu, get(4) sum %lld\n", rows.size().value(),
              static_cast<long long>(rows.get(4).data.sum().item<int64_t>()));
  auto random_rows =
      data::make_data_loader(rows.map(data::transforms::Stack<data::TensorExample>()),
                             data::DataLoaderOptions().batch_size(4));
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *random_rows) {
      torch::Tensor firsts = batch.data.select(1, 0);
      std::printf("epoch %d rows:", epoch);
      for (int64_t i = 0; i < firsts.size(0); ++i) {
        std::printf(" %lld", static_cast<long long>(firsts.select(0, i).item<int64_t>() / 2));
      }
      std::printf("\n");
    }
  }
  std::vector<torch::Tensor> pictures;
  for (int i = 0; i < 6; ++i) pictures.push_back(torch::full({3, 2, 2}, static_cast<double>(i)));
  auto listed = data::datasets::TensorDataset(pictures);
  std::printf(
      "listed: tensor [%lld, %lld, %lld, %lld]\n", static_cast<long long>(listed.tensor.size(0)),
      static_cast<long long>(listed.tensor.size(1)), static_cast<long long>(listed.tensor.size(2)),
      static_cast<long long>(listed.tensor.size(3)));

  // Normalize per channel (means and stddevs as lists) and with one value for all channels.
  struct Pictures : data::datasets::Dataset<Pictures> {
    data::Example<> get(size_t i) override {
      return {torch::arange(12, torch::kFloat32).view({3, 2, 2}) + static_cast<double>(i),
              torch::tensor(static_cast<int64_t>(i))};
    }
    torch::optional<size_t> size() const override { return 4; }
  };
  auto per_channel = Pictures()
                         .map(data::transforms::Normalize<>({1.0, 5.0, 9.0}, {0.5, 2.0, 4.0}))
                         .map(data::transforms::Stack<>());
  auto normalized = data::make_data_loader<data::samplers::SequentialSampler>(per_channel, 4);
  for (auto& batch : *normalized) {
    std::printf(
        "normalized per channel: [%lld, %lld, %lld, %lld] sums %.4f %.4f %.4f\n",
        static_cast<long long>(batch.data.size(0)), static_cast<long long>(batch.data.size(1)),
        static_cast<long long>(batch.data.size(2)), static_cast<long long>(batch.data.size(3)),
        batch.data.select(1, 0).sum().item<float>(), batch.data.select(1, 1).sum().item<float>(),
        batch.data.select(1, 2).sum().item<float>());
  }
  data::transforms::Normalize<> one_value(0.5, 0.25);
  std::printf("one value: %.4f (mean sizes %lld %lld %lld)\n",
              one_value(torch::ones({1, 2, 2})).sum().item<float>(),
              static_cast<long long>(one_value.mean.size(0)),
              static_cast<long long>(one_value.mean.size(1)),
              static_cast<long long>(one_value.mean.size(2)));

  // The iterator spelled out.
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      squares.map(data::transforms::Stack<>()), data::DataLoaderOptions(6));
  auto it = loader->begin();
  std::printf("begin != end: %d\n", it != loader->end());
  std::printf("first batch via ->: %lld examples\n", static_cast<long long>(it->data.size(0)));
  ++it;
  std::printf("second batch via *: %lld examples\n", static_cast<long long>((*it).data.size(0)));
  ++it;
  std::printf("after the last: == end %d\n", it == loader->end());
  try {
    ++it;
  } catch (const c10::Error&) {
    std::printf("incrementing past the end threw\n");
  }

  // The samplers themselves.
  torch::manual_seed(11);
  data::samplers::RandomSampler random(6);
  print_indices("random", random.next(4));
  print_indices("random rest", random.next(4));
  print_indices("random done", random.next(4));
  random.reset();
  print_indices("random reset", random.next(10));
  std::printf("random index %zu\n", random.index());
  random.reset(3);
  print_indices("random reset 3", random.next(10));
  data::samplers::RandomSampler narrow(5, torch::kInt32);
  print_indices("random int32", narrow.next(5));
  data::samplers::SequentialSampler sequential(5);
  print_indices("sequential", sequential.next(3));
  print_indices("sequential rest", sequential.next(3));
  sequential.reset(2);
  print_indices("sequential reset 2", sequential.next(3));
  for (size_t rank = 0; rank < 3; ++rank) {
    data::samplers::DistributedRandomSampler shuffled(11, 3, rank);
    print_indices("distributed random", shuffled.next(10));
    shuffled.set_epoch(4);
    shuffled.reset();
    print_indices("distributed random epoch 4", shuffled.next(10));
    data::samplers::DistributedRandomSampler exact(11, 3, rank, false);
    print_indices("distributed random no duplicates", exact.next(10));
    data::samplers::DistributedSequentialSampler in_order(11, 3, rank);
    print_indices("distributed sequential", in_order.next(10));
    data::samplers::DistributedSequentialSampler in_order_exact(11, 3, rank, false);
    print_indices("distributed sequential no duplicates", in_order_exact.next(10));
  }

  // A sampler of one's own passed to make_data_loader.
  auto sharded = data::make_data_loader(squares.map(data::transforms::Stack<>()),
                                        data::samplers::DistributedSequentialSampler(10, 2, 1),
                                        data::DataLoaderOptions().batch_size(2));
  for (auto& batch : *sharded) {
    std::printf("rank 1 of 2: data sum %.1f\n", batch.data.sum().item<float>());
  }

  // A stream, with StreamSampler deciding the epoch's length.
  auto stream = data::make_data_loader(Counter().map(data::transforms::Stack<>()),
                                       data::samplers::StreamSampler(/*epoch_size=*/7),
                                       data::DataLoaderOptions().batch_size(3));
  for (auto& batch : *stream) {
    std::printf("stream: %lld examples, data sum %.1f\n",
                static_cast<long long>(batch.data.size(0)), batch.data.sum().item<float>());
  }

  // A stateful dataset: no sampler, the dataset says when the epoch ends.
  auto stateful = data::make_data_loader(Stock(), data::DataLoaderOptions().batch_size(3));
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto& batch : *stateful) {
      double sum = 0;
      for (double v : batch) sum += v;
      std::printf("stateful epoch %d: %zu values, sum %.1f\n", epoch, batch.size(), sum);
    }
  }

  // A loader needs a sized dataset to make its sampler.
  try {
    data::make_data_loader(Unsized(), 2);
  } catch (const c10::Error&) {
    std::printf("an unsized dataset without a sampler threw\n");
  }
  return 0;
}
