// Sampler<BatchRequest>: what a DataLoader asks for the next batch's request (by default the
// indices of its examples). reset(size) starts a new epoch, next(batch_size) gives the next
// request or nullopt at the end; save/load write and read its position.
#pragma once

#include <cstddef>
#include <vector>

#include "torch/data/detail/archive_fwd.h"
#include "torch/types.h"

namespace torch::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  /// Starts over, with `new_size` examples when given.
  virtual void reset(optional<size_t> new_size) = 0;
  /// The next request of at most `batch_size` examples, or nullopt when the epoch is done.
  virtual optional<BatchRequest> next(size_t batch_size) = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

}  // namespace torch::data::samplers
