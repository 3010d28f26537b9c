// StatefulDataset: a dataset that keeps its own position and is asked only for a number of
// examples at a time; get_batch returns nullopt when the epoch is over, reset() starts the
// next one (a StatefulDataLoader calls it at begin()). save/load write and read the position.
#pragma once

#include <cstddef>
#include <vector>

#include "torch/data/datasets/base.h"
#include "torch/data/detail/archive_fwd.h"
#include "torch/data/example.h"

namespace torch::data::datasets {

template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, optional<Batch>, BatchRequest> {
 public:
  virtual void reset() = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

template <typename... Args>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const StatefulDataset<Args...>& dataset) {
  dataset.save(archive);
  return archive;
}

template <typename... Args>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    StatefulDataset<Args...>& dataset) {
  dataset.load(archive);
  return archive;
}

}  // namespace torch::data::datasets
