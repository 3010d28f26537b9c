// Datasets: the map-style Dataset interface (size, get), the Example sample type, TensorDataset,
// Subset, ConcatDataset and random_split (torch.utils.data's, with PyTorch 1.13's split order).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember::data {

/// One (input, target) sample; also the batch type its default collate produces. An aggregate,
/// so `auto& [data, target] = example;` works. `target` may be undefined (unlabelled data).
struct Example {
  Tensor data;
  Tensor target;
};

/// A map-style dataset: `size()` samples addressed by index 0..size()-1. With num_workers > 0
/// the DataLoader calls get() from several threads at once, so get() must be thread-safe (it is
/// const for that reason; datasets that cache use their own locking).
template <class S = Example>
class Dataset {
 public:
  using Sample = S;
  virtual ~Dataset() = default;
  /// len(dataset).
  virtual int64_t size() const = 0;
  /// dataset[index], 0 <= index < size().
  virtual S get(int64_t index) const = 0;
};

/// Any class derived from some Dataset<S>.
template <class D>
concept DatasetType = requires { typename std::remove_cvref_t<D>::Sample; } &&
                      std::derived_from<std::remove_cvref_t<D>,
                                        Dataset<typename std::remove_cvref_t<D>::Sample>>;

namespace detail {
template <class D>
struct SharedDataset {
  using type = std::remove_cvref_t<D>;
};
template <class D>
struct SharedDataset<std::shared_ptr<D>> {
  using type = D;
};
}  // namespace detail

/// The Dataset type behind D, which is a dataset or a shared_ptr to one.
template <class D>
using dataset_t = typename detail::SharedDataset<std::remove_cvref_t<D>>::type;

/// A shared handle to `dataset`: a shared_ptr is shared as is; a dataset object is copied (or
/// moved) into a new one. Datasets hold tensors (shared storage), so copies are cheap.
template <class D>
std::shared_ptr<Dataset<typename dataset_t<D>::Sample>> share_dataset(D&& dataset) {
  if constexpr (std::is_same_v<std::remove_cvref_t<D>, std::shared_ptr<dataset_t<D>>>) {
    return dataset;
  } else {
    return std::make_shared<std::remove_cvref_t<D>>(std::forward<D>(dataset));
  }
}

/// Samples are slices along dim 0 of `data` and `target` (torch.utils.data.TensorDataset with
/// two tensors; with one, `target` stays undefined).
class TensorDataset : public Dataset<Example> {
 public:
  explicit TensorDataset(Tensor data, Tensor target = {});
  int64_t size() const override { return size_; }
  Example get(int64_t index) const override;
  const Tensor& data() const { return data_; }
  const Tensor& target() const { return target_; }

 private:
  Tensor data_, target_;
  int64_t size_ = 0;
};

/// Wraps a Python-style negative index and checks the range; used by every dataset's get().
int64_t checked_index(const char* op, int64_t index, int64_t size);

/// The samples of `dataset` at `indices` (torch.utils.data.Subset).
template <class S>
class Subset : public Dataset<S> {
 public:
  template <class D>
  Subset(D&& dataset, std::vector<int64_t> indices)
      : dataset_(share_dataset(std::forward<D>(dataset))), indices_(std::move(indices)) {}
  int64_t size() const override { return int64_t(indices_.size()); }
  S get(int64_t index) const override {
    return dataset_->get(indices_[checked_index("Subset", index, size())]);
  }
  const std::vector<int64_t>& indices() const { return indices_; }
  const Dataset<S>& dataset() const { return *dataset_; }

 private:
  std::shared_ptr<Dataset<S>> dataset_;
  std::vector<int64_t> indices_;
};
template <class D>
Subset(D&&, std::vector<int64_t>) -> Subset<typename dataset_t<D>::Sample>;

/// The datasets one after another (torch.utils.data.ConcatDataset).
template <class S>
class ConcatDataset : public Dataset<S> {
 public:
  explicit ConcatDataset(std::vector<std::shared_ptr<Dataset<S>>> datasets)
      : datasets_(std::move(datasets)) {
    EMBER_CHECK(!datasets_.empty(), "ConcatDataset", "datasets should not be an empty iterable");
    int64_t total = 0;
    for (const auto& d : datasets_) {
      EMBER_CHECK(d != nullptr, "ConcatDataset", "got a null dataset");
      total += d->size();
      cumulative_sizes_.push_back(total);
    }
  }
  int64_t size() const override { return cumulative_sizes_.back(); }
  S get(int64_t index) const override {
    index = checked_index("ConcatDataset", index, size());
    // The first dataset whose cumulative size exceeds index (bisect_right, as PyTorch).
    const auto it = std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index);
    const auto which = it - cumulative_sizes_.begin();
    const int64_t offset = which == 0 ? 0 : cumulative_sizes_[which - 1];
    return datasets_[which]->get(index - offset);
  }
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }

 private:
  std::vector<std::shared_ptr<Dataset<S>>> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

/// The index lists random_split gives its subsets: `lengths` are sizes summing to n, or
/// fractions summing to 1 (floored, the remainder handed out round-robin, as PyTorch 1.13);
/// one randperm(n) from `generator` (null: the default generator) is cut in order.
std::vector<std::vector<int64_t>> random_split_indices(int64_t n, const std::vector<double>& lengths,
                                                       Generator* generator = nullptr);

/// torch.utils.data.random_split: non-overlapping random Subsets of the given lengths/fractions.
template <class D>
std::vector<Subset<typename dataset_t<D>::Sample>> random_split(D&& dataset,
                                                                const std::vector<double>& lengths,
                                                                Generator* generator = nullptr) {
  auto shared = share_dataset(std::forward<D>(dataset));
  std::vector<Subset<typename dataset_t<D>::Sample>> out;
  for (auto& idx : random_split_indices(shared->size(), lengths, generator)) {
    out.emplace_back(shared, std::move(idx));
  }
  return out;
}

}  // namespace ember::data
