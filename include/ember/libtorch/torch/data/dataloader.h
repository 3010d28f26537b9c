// make_data_loader: a DataLoader over a dataset, owned by a std::unique_ptr.
//   make_data_loader(dataset, options)                  a RandomSampler over the dataset
//   make_data_loader<SequentialSampler>(dataset, 64)    any sampler made from the size
//   make_data_loader(dataset, sampler, options)         a sampler of one's own
//   make_data_loader(stateful_dataset, options)         asks the dataset itself
// The options may be a bare batch size.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "ember/error.h"
#include "torch/data/dataloader/stateful.h"
#include "torch/data/dataloader/stateless.h"
#include "torch/data/samplers/random.h"

namespace torch::data {

template <typename Dataset, typename Sampler>
requires(!Dataset::is_stateful)
    std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
        Dataset dataset, Sampler sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

template <typename Sampler = samplers::RandomSampler, typename Dataset>
requires(!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t>)
    std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
        Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const optional<size_t> size = dataset.size();
  EMBER_CHECK(size.has_value(), "make_data_loader",
              "the dataset's size() is nullopt, but a sampler is made from the size: pass a "
              "sampler of your own (make_data_loader(dataset, sampler, options))");
  return make_data_loader(std::move(dataset), Sampler(*size), std::move(options));
}

template <typename Dataset>
requires(Dataset::is_stateful) std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace torch::data
