// Sequential, random, subset-random, weighted and batch samplers. The random ones reproduce
// PyTorch 1.13's draws: randperm per pass, randint for replacement, and torch.multinomial's two
// CPU algorithms for WeightedRandomSampler.
#include "ember/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ember/creation.h"
#include "ember/error.h"

namespace ember::data {

namespace detail {

std::vector<int64_t> randperm_list(int64_t n, Generator* g) {
  const Tensor p = randperm(n, {.generator = g});
  const int64_t* d = p.data_ptr<int64_t>();
  return std::vector<int64_t>(d, d + n);
}

int64_t random_seed_from(Generator* g) {
  Generator& gen = g ? *g : default_generator();
  // random_() on int64 without bounds: random64() modulo 2^63.
  return int64_t(gen.random64() & ((uint64_t(1) << 63) - 1));
}

}  // namespace detail

namespace {

void check_num_samples(const char* op, int64_t num_samples) {
  EMBER_CHECK(num_samples > 0, op, "num_samples should be a positive integer value, but got "
              "num_samples=", num_samples);
}

// uniform_real_distribution<double>(0, 1): the low 53 bits of one random64().
double uniform01(Generator& g) {
  return double(g.random64() & ((uint64_t(1) << 53) - 1)) * 0x1p-53;
}

}  // namespace

SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  EMBER_CHECK(n >= 0, "SequentialSampler", "expected a non-negative dataset size, got ", n);
}

std::vector<int64_t> SequentialSampler::indices() {
  std::vector<int64_t> out(static_cast<size_t>(n_));
  std::iota(out.begin(), out.end(), int64_t(0));
  return out;
}

RandomSampler::RandomSampler(int64_t n, RandomSamplerOptions options)
    : n_(n),
      num_samples_(options.num_samples.value_or(n)),
      replacement_(options.replacement),
      generator_(options.generator) {
  check_num_samples("RandomSampler", num_samples_);
}

std::vector<int64_t> RandomSampler::indices() {
  // Without a generator each pass seeds a private one from the default generator, so passes
  // differ and the default stream advances by one draw (PyTorch 1.13).
  std::optional<Generator> own;
  Generator* g = generator_;
  if (g == nullptr) {
    own.emplace(uint64_t(detail::random_seed_from(nullptr)));
    g = &*own;
  }
  std::vector<int64_t> out;
  out.reserve(size_t(num_samples_));
  if (replacement_) {
    // PyTorch draws chunks of 32 with randint(high=n); the draws concatenate to one stream.
    const Tensor r = randint(0, n_, {num_samples_}, {.generator = g});
    const int64_t* d = r.data_ptr<int64_t>();
    out.assign(d, d + num_samples_);
  } else {
    for (int64_t k = 0; k < num_samples_ / n_; ++k) {
      auto p = detail::randperm_list(n_, g);
      out.insert(out.end(), p.begin(), p.end());
    }
    // PyTorch draws the last permutation even when nothing of it is kept.
    auto p = detail::randperm_list(n_, g);
    out.insert(out.end(), p.begin(), p.begin() + num_samples_ % n_);
  }
  return out;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> indices, Generator* generator)
    : indices_(std::move(indices)), generator_(generator) {}

std::vector<int64_t> SubsetRandomSampler::indices() {
  std::vector<int64_t> out;
  out.reserve(indices_.size());
  for (int64_t i : detail::randperm_list(int64_t(indices_.size()), generator_)) {
    out.push_back(indices_[size_t(i)]);
  }
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples,
                                             bool replacement, Generator* generator)
    : weights_(std::move(weights)),
      num_samples_(num_samples),
      replacement_(replacement),
      generator_(generator) {
  check_num_samples("WeightedRandomSampler", num_samples);
  const char* op = "WeightedRandomSampler";
  EMBER_CHECK(!weights_.empty(), op, "weights must not be empty");
  double sum = 0;
  int64_t nonzero = 0;
  for (double w : weights_) {
    EMBER_CHECK(std::isfinite(w) && w >= 0, op,
                "probability tensor contains either `inf`, `nan` or element < 0 (got ", w, ")");
    sum += w;
    nonzero += w > 0;
  }
  EMBER_CHECK(sum > 0, op, "invalid multinomial distribution (sum of probabilities <= 0)");
  if (!replacement_) {
    EMBER_CHECK(num_samples_ <= int64_t(weights_.size()), op, "cannot sample n_sample (",
                num_samples_, ") > prob_dist.size(-1) (", weights_.size(),
                ") samples without replacement");
    EMBER_CHECK(num_samples_ <= nonzero, op, "invalid multinomial distribution (with "
                "replacement=False, not enough non-negative category to sample)");
  }
}

std::vector<int64_t> WeightedRandomSampler::indices() {
  Generator& g = generator_ ? *generator_ : default_generator();
  const int64_t n = int64_t(weights_.size());
  std::vector<int64_t> out(static_cast<size_t>(num_samples_));
  if (!replacement_) {
    // torch.multinomial's fast path: q = w / Exp(1); the num_samples largest q win (a Gumbel
    // race). exponential_ draws -log(1 - u) per element in order.
    std::vector<double> q(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) q[i] = weights_[i] / -std::log(1.0 - uniform01(g));
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return q[a] > q[b]; });
    std::copy(order.begin(), order.begin() + num_samples_, out.begin());
    return out;
  }
  // With replacement: normalised cumulative sums, last bucket forced to 1, one uniform draw and
  // a lower-bound binary search per sample (PyTorch's multinomial_with_replacement CPU kernel).
  std::vector<double> cdf(static_cast<size_t>(n));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) cdf[i] = (sum += weights_[i]);
  for (double& c : cdf) c /= sum;
  cdf.back() = 1.0;
  for (auto& o : out) {
    const double u = uniform01(g);
    o = std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
  }
  return out;
}

BatchSampler::BatchSampler(SamplerRef sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  EMBER_CHECK(sampler_, "BatchSampler", "sampler must not be null");
  EMBER_CHECK(batch_size > 0, "BatchSampler",
              "batch_size should be a positive integer value, but got batch_size=", batch_size);
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<std::vector<int64_t>> BatchSampler::batches() {
  const std::vector<int64_t> idx = sampler_->indices();
  std::vector<std::vector<int64_t>> out;
  out.reserve(idx.size() / size_t(batch_size_) + 1);
  for (size_t i = 0; i < idx.size(); i += size_t(batch_size_)) {
    const size_t end = std::min(idx.size(), i + size_t(batch_size_));
    if (drop_last_ && end - i < size_t(batch_size_)) break;
    out.emplace_back(idx.begin() + i, idx.begin() + end);
  }
  return out;
}

}  // namespace ember::data
