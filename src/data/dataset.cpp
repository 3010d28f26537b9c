// TensorDataset, the shared index check, random_split's lengths and default_collate's stacking.
#include <cmath>

#include "ember/creation.h"
#include "ember/data/collate.h"
#include "ember/data/dataset.h"
#include "ember/data/sampler.h"
#include "ember/error.h"
#include "ember/shape.h"

namespace ember::data {

int64_t checked_index(const char* op, int64_t index, int64_t size) {
  const int64_t i = index < 0 ? index + size : index;
  EMBER_CHECK(i >= 0 && i < size, op, "index ", index, " is out of range for a dataset of size ",
              size);
  return i;
}

TensorDataset::TensorDataset(Tensor data, Tensor target)
    : data_(std::move(data)), target_(std::move(target)) {
  EMBER_CHECK(data_.defined() && data_.dim() > 0, "TensorDataset",
              "expected a tensor with at least one dimension for data");
  size_ = data_.size(0);
  if (target_.defined()) {
    EMBER_CHECK(target_.dim() > 0 && target_.size(0) == size_, "TensorDataset",
                "Size mismatch between tensors: data has ", size_, " samples, target has ",
                target_.dim() > 0 ? target_.size(0) : 0);
  }
}

Example TensorDataset::get(int64_t index) const {
  const int64_t i = checked_index("TensorDataset", index, size_);
  return {data_.select(0, i), target_.defined() ? target_.select(0, i) : Tensor()};
}

std::vector<std::vector<int64_t>> random_split_indices(int64_t n, const std::vector<double>& lengths,
                                                       Generator* generator) {
  const char* op = "random_split";
  std::vector<int64_t> sizes;
  double sum = 0;
  for (double l : lengths) sum += l;
  // Fractions when they sum to 1 (math.isclose's rel_tol 1e-9), as PyTorch 1.13.
  if (std::abs(sum - 1.0) <= 1e-9 && sum <= 1.0) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      EMBER_CHECK(lengths[i] >= 0 && lengths[i] <= 1, op, "Fraction at index ", i,
                  " is not between 0 and 1");
      sizes.push_back(int64_t(std::floor(double(n) * lengths[i])));
    }
    int64_t assigned = 0;
    for (int64_t s : sizes) assigned += s;
    // The remainder goes round-robin, one item at a time, from the first split.
    for (int64_t r = 0; r < n - assigned; ++r) sizes[size_t(r) % sizes.size()] += 1;
  } else {
    for (double l : lengths) {
      EMBER_CHECK(l >= 0 && l == std::floor(l), op,
                  "lengths must be non-negative integers or fractions summing to 1, got ", l);
      sizes.push_back(int64_t(l));
    }
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  EMBER_CHECK(total == n, op, "Sum of input lengths (", total,
              ") does not equal the length of the input dataset (", n, ")!");
  const std::vector<int64_t> perm = detail::randperm_list(n, generator);
  std::vector<std::vector<int64_t>> out;
  int64_t offset = 0;
  for (int64_t s : sizes) {
    out.emplace_back(perm.begin() + offset, perm.begin() + offset + s);
    offset += s;
  }
  return out;
}

namespace detail {

Tensor collate_tensors(const std::vector<Tensor>& samples) {
  EMBER_CHECK(!samples.empty(), "default_collate", "cannot collate an empty batch");
  size_t undefined = 0;
  for (const Tensor& t : samples) undefined += !t.defined();
  if (undefined == samples.size()) return Tensor();
  EMBER_CHECK(undefined == 0, "default_collate",
              "some samples have an undefined tensor where others have one");
  const auto& shape = samples[0].sizes();
  for (size_t i = 1; i < samples.size(); ++i) {
    EMBER_CHECK(samples[i].sizes() == shape, "default_collate",
                "stack expects each tensor to be equal size, but got ", samples[0].sizes(),
                " at entry 0 and ", samples[i].sizes(), " at entry ", i);
  }
  return stack(samples, 0);
}

Tensor collate_int64(const std::vector<int64_t>& samples) { return from_vector(samples); }
Tensor collate_double(const std::vector<double>& samples) { return from_vector(samples); }
Tensor collate_bool(const std::vector<bool>& samples) {
  std::vector<uint8_t> bytes(samples.begin(), samples.end());
  return from_vector(bytes).to(kBool);
}

}  // namespace detail

}  // namespace ember::data
