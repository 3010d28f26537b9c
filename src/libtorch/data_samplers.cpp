// torch::data's samplers (torch/data/samplers/*.h). Their orders are LibTorch's exactly: the
// random one is randperm from the default generator (reproduced by ember bit for bit), the
// distributed random one std::shuffle with std::mt19937(epoch), which this same standard
// library computes the same way.
#include <algorithm>
#include <numeric>
#include <random>

#include "ember/creation.h"
#include "ember/error.h"
#include "torch/data/samplers/distributed.h"
#include "torch/data/samplers/random.h"
#include "torch/data/samplers/sequential.h"
#include "torch/data/samplers/stream.h"
#include "torch/serialize/input-archive.h"
#include "torch/serialize/output-archive.h"

namespace torch::data::samplers {

namespace {

// A sampler's position and sizes go into its archive as int64 tensors, as LibTorch keeps them.
void write_count(serialize::OutputArchive& archive, const std::string& key, size_t value) {
  archive.write(key, ember::full(std::vector<int64_t>{}, int64_t(value), {.dtype = kInt64}));
}

size_t read_count(serialize::InputArchive& archive, const std::string& key) {
  Tensor value;
  archive.read(key, value);
  return size_t(value.item<int64_t>());
}

void check_replicas(const char* op, size_t num_replicas, size_t rank) {
  EMBER_CHECK(num_replicas > 0, op, "num_replicas must be at least 1, got 0");
  EMBER_CHECK(rank < num_replicas, op, "rank ", rank, " is out of range for ", num_replicas,
              " replicas: expected 0 <= rank < num_replicas");
}

}  // namespace

// ── SequentialSampler ────────────────────────────────────────────────────────────────────

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  index_ = 0;
}

optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  const size_t count = std::min(batch_size, size_ - index_);
  if (count == 0) return nullopt;
  std::vector<size_t> indices(count);
  std::iota(indices.begin(), indices.end(), index_);
  index_ += count;
  return indices;
}

void SequentialSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "index", index_);
}
void SequentialSampler::load(serialize::InputArchive& archive) {
  index_ = read_count(archive, "index");
}
size_t SequentialSampler::index() const noexcept { return index_; }

// ── RandomSampler ────────────────────────────────────────────────────────────────────────

RandomSampler::RandomSampler(int64_t size, Dtype index_dtype)
    : indices_(randperm(size, {.dtype = index_dtype})) {}

RandomSampler::~RandomSampler() = default;

void RandomSampler::reset(optional<size_t> new_size) {
  const int64_t size = new_size ? int64_t(*new_size) : indices_.numel();
  indices_ = randperm(size, {.dtype = indices_.dtype()});
  index_ = 0;
}

optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  const int64_t count = std::min(int64_t(batch_size), indices_.numel() - index_);
  if (count == 0) return nullopt;
  // The permutation may be kept in a narrower dtype; a batch's worth is widened to read it.
  const Tensor batch = indices_.slice(0, index_, index_ + count).to(kInt64).contiguous();
  const int64_t* values = batch.data_ptr<int64_t>();
  index_ += count;
  return std::vector<size_t>(values, values + count);
}

void RandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "index", size_t(index_));
  archive.write("indexes", indices_);
}
void RandomSampler::load(serialize::InputArchive& archive) {
  index_ = int64_t(read_count(archive, "index"));
  archive.read("indexes", indices_);
}
size_t RandomSampler::index() const noexcept { return size_t(index_); }

// ── DistributedRandomSampler ─────────────────────────────────────────────────────────────

DistributedRandomSampler::DistributedRandomSampler(size_t size, size_t num_replicas, size_t rank,
                                                   bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  check_replicas("DistributedRandomSampler", num_replicas, rank);
  reset(size_);
}

void DistributedRandomSampler::populate_indices() {
  const size_t local = local_sample_count();
  // With several replicas every one gets `local` indices: the list is padded by wrapping
  // around to 0 (duplicates allowed) or cut to local * num_replicas (not).
  const size_t count = num_replicas_ == 1 ? size_ : local * num_replicas_;
  all_indices_.resize(count);
  for (size_t i = 0; i < count; ++i) all_indices_[i] = i < size_ ? i : i - size_;
  begin_index_ = rank_ * local;
  end_index_ = begin_index_ + local;
  sample_index_ = begin_index_;
}

void DistributedRandomSampler::reset(optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  populate_indices();
  std::mt19937 engine(epoch_);
  std::shuffle(all_indices_.begin(), all_indices_.end(), engine);
}

optional<std::vector<size_t>> DistributedRandomSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> indices(all_indices_.begin() + sample_index_, all_indices_.begin() + end);
  sample_index_ = end;
  return indices;
}

void DistributedRandomSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index", sample_index_);
  write_count(archive, "epoch", epoch_);
}
void DistributedRandomSampler::load(serialize::InputArchive& archive) {
  // The permutation is a function of the epoch: drawn again, then the position restored.
  epoch_ = read_count(archive, "epoch");
  reset(size_);
  sample_index_ = read_count(archive, "sample_index");
}
size_t DistributedRandomSampler::index() const noexcept { return sample_index_ - begin_index_; }

// ── DistributedSequentialSampler ─────────────────────────────────────────────────────────

DistributedSequentialSampler::DistributedSequentialSampler(size_t size, size_t num_replicas,
                                                           size_t rank, bool allow_duplicates)
    : DistributedSampler(size, num_replicas, rank, allow_duplicates) {
  check_replicas("DistributedSequentialSampler", num_replicas, rank);
  populate_indices();
}

void DistributedSequentialSampler::populate_indices() {
  begin_index_ = rank_ * local_sample_count();
  end_index_ = begin_index_ + local_sample_count();
  sample_index_ = begin_index_;
}

void DistributedSequentialSampler::reset(optional<size_t> new_size) {
  if (new_size) size_ = *new_size;
  populate_indices();
}

optional<std::vector<size_t>> DistributedSequentialSampler::next(size_t batch_size) {
  if (sample_index_ == end_index_) return nullopt;
  const size_t end = std::min(sample_index_ + batch_size, end_index_);
  std::vector<size_t> indices(end - sample_index_);
  // The last replica's block may run past the end: it wraps around to index 0.
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = (sample_index_ + i) % size_;
  sample_index_ = end;
  return indices;
}

void DistributedSequentialSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "sample_index", sample_index_);
}
void DistributedSequentialSampler::load(serialize::InputArchive& archive) {
  sample_index_ = read_count(archive, "sample_index");
}
size_t DistributedSequentialSampler::index() const noexcept { return sample_index_ - begin_index_; }

// ── StreamSampler ────────────────────────────────────────────────────────────────────────

BatchSize::BatchSize(size_t size) : size_(size) {}
size_t BatchSize::size() const noexcept { return size_; }
BatchSize::operator size_t() const noexcept { return size_; }

StreamSampler::StreamSampler(size_t epoch_size) : epoch_size_(epoch_size) {}

void StreamSampler::reset(optional<size_t> new_size) {
  if (new_size) epoch_size_ = *new_size;
  examples_retrieved_so_far_ = 0;
}

optional<BatchSize> StreamSampler::next(size_t batch_size) {
  const size_t count = std::min(batch_size, epoch_size_ - examples_retrieved_so_far_);
  if (count == 0) return nullopt;
  examples_retrieved_so_far_ += count;
  return BatchSize(count);
}

void StreamSampler::save(serialize::OutputArchive& archive) const {
  write_count(archive, "examples_retrieved_so_far", examples_retrieved_so_far_);
}
void StreamSampler::load(serialize::InputArchive& archive) {
  examples_retrieved_so_far_ = read_count(archive, "examples_retrieved_so_far");
}

}  // namespace torch::data::samplers
