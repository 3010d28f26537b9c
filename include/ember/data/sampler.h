// Samplers: which dataset indices one pass visits, in which order (torch.utils.data.sampler).
// Random samplers draw from a Generator exactly as PyTorch 1.13 does (randperm / randint /
// multinomial), so a seed gives the same order as in Python.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/generator.h"

namespace ember::data {

/// Yields the indices of one pass; each call to indices() is a fresh iter(sampler).
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// len(sampler): how many indices one pass yields.
  virtual int64_t size() const = 0;
  /// One pass (a new order each call for random samplers).
  virtual std::vector<int64_t> indices() = 0;
};

namespace detail {
/// How options hold a sampler: an lvalue is shared by reference (so `sampler.set_epoch(e)` on the
/// caller's object reaches the loader; it must outlive the loader), an rvalue is moved into an
/// owned copy, a shared_ptr is shared.
template <class Base>
class ObjectRef {
 public:
  ObjectRef() = default;
  ObjectRef(std::nullptr_t) {}  // NOLINT
  template <class T>
    requires std::derived_from<std::remove_cvref_t<T>, Base>
  ObjectRef(T&& object) {  // NOLINT
    if constexpr (std::is_lvalue_reference_v<T>) {
      ptr_ = std::shared_ptr<Base>(std::shared_ptr<Base>{}, &object);  // non-owning
    } else {
      ptr_ = std::make_shared<std::remove_cvref_t<T>>(std::move(object));
    }
  }
  template <class T>
    requires std::derived_from<T, Base>
  ObjectRef(std::shared_ptr<T> p) : ptr_(std::move(p)) {}  // NOLINT
  Base* operator->() const { return ptr_.get(); }
  Base& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  const std::shared_ptr<Base>& shared() const { return ptr_; }

 private:
  std::shared_ptr<Base> ptr_;
};
}  // namespace detail

using SamplerRef = detail::ObjectRef<Sampler>;

/// 0, 1, ..., n-1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  template <DatasetType D>
  explicit SequentialSampler(const D& dataset) : SequentialSampler(dataset.size()) {}
  int64_t size() const override { return n_; }
  std::vector<int64_t> indices() override;

 private:
  int64_t n_;
};

struct RandomSamplerOptions {
  bool replacement = false;
  std::optional<int64_t> num_samples = {};  // default: the dataset size
  Generator* generator = nullptr;           // null: each pass seeds a fresh generator from the
                                            // default one, as PyTorch
};

/// Random order: randperm passes (num_samples may exceed n: whole permutations, then a cut one),
/// or with replacement randint draws.
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(int64_t n, RandomSamplerOptions options = {});
  template <DatasetType D>
  explicit RandomSampler(const D& dataset, RandomSamplerOptions options = {})
      : RandomSampler(dataset.size(), options) {}
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices() override;

 private:
  int64_t n_, num_samples_;
  bool replacement_;
  Generator* generator_;
};

/// The given indices in a random order (randperm over their positions).
class SubsetRandomSampler : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> indices, Generator* generator = nullptr);
  int64_t size() const override { return int64_t(indices_.size()); }
  std::vector<int64_t> indices() override;

 private:
  std::vector<int64_t> indices_;
  Generator* generator_;
};

/// Index i with probability weights[i] / sum (torch.multinomial: inverse-CDF draws with
/// replacement, exponential race + top-k without).
class WeightedRandomSampler : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        Generator* generator = nullptr);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices() override;

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  Generator* generator_;
};

/// Groups another sampler's indices into lists of batch_size (the last one shorter unless
/// drop_last). Derive from it (default constructor) to yield batches of your own.
class BatchSampler {
 public:
  BatchSampler(SamplerRef sampler, int64_t batch_size, bool drop_last = false);
  virtual ~BatchSampler() = default;
  /// Batches per pass.
  virtual int64_t size() const;
  /// One pass of batches.
  virtual std::vector<std::vector<int64_t>> batches();
  const SamplerRef& sampler() const { return sampler_; }

 protected:
  BatchSampler() = default;

 private:
  SamplerRef sampler_;
  int64_t batch_size_ = 1;
  bool drop_last_ = false;
};

using BatchSamplerRef = detail::ObjectRef<BatchSampler>;

namespace detail {
/// torch.randperm(n, generator=g).tolist(); null g: the default generator.
std::vector<int64_t> randperm_list(int64_t n, Generator* g);
/// Torch's `torch.empty((), dtype=torch.int64).random_(generator=g).item()`: 63 random bits.
int64_t random_seed_from(Generator* g);
}  // namespace detail

}  // namespace ember::data
