// Iterator<Batch>: a DataLoader's input iterator (for (auto& batch : *loader)). Copies share
// one position. The first batch is fetched lazily, on the first dereference or comparison with
// end(), so begin() itself only starts the epoch; an iterator equals end() once the loader has
// no batch left.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "ember/error.h"

namespace torch::data {

namespace detail {

template <typename Batch>
struct IteratorState {
  std::function<std::optional<Batch>()> next_batch;  // empty for end()
  std::optional<Batch> batch;
  bool fetched = false;

  bool is_end() const { return !next_batch; }
  void fetch_first() {
    if (fetched) return;
    batch = next_batch();
    fetched = true;
  }
};

}  // namespace detail

template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;

  /// An iterator over the batches `next_batch` returns until it returns nullopt; without one,
  /// the past-the-end iterator.
  explicit Iterator(std::function<std::optional<Batch>()> next_batch = {})
      : state_(std::make_shared<detail::IteratorState<Batch>>()) {
    state_->next_batch = std::move(next_batch);
  }

  Iterator& operator++() {
    EMBER_CHECK(!state_->is_end(), "DataLoader iterator",
                "incrementing the DataLoader's end() iterator is not allowed");
    state_->fetch_first();
    EMBER_CHECK(state_->batch.has_value(), "DataLoader iterator",
                "incrementing an iterator that is already past the last batch");
    state_->batch = state_->next_batch();
    return *this;
  }

  Batch& operator*() { return current(); }
  Batch* operator->() { return &current(); }

  /// Two ends are equal; an iterator equals end() when it has no batch left; two iterators
  /// over batches are equal when they are copies of one another.
  bool operator==(const Iterator& other) const {
    if (state_->is_end() && other.state_->is_end()) return true;
    if (state_->is_end() || other.state_->is_end()) {
      auto& valid = state_->is_end() ? *other.state_ : *state_;
      valid.fetch_first();
      return !valid.batch.has_value();
    }
    return state_ == other.state_;
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  Batch& current() {
    EMBER_CHECK(!state_->is_end(), "DataLoader iterator",
                "dereferencing the DataLoader's end() iterator is not allowed");
    state_->fetch_first();
    EMBER_CHECK(state_->batch.has_value(), "DataLoader iterator",
                "dereferencing an iterator that is past the last batch");
    return *state_->batch;
  }

  std::shared_ptr<detail::IteratorState<Batch>> state_;
};

}  // namespace torch::data
