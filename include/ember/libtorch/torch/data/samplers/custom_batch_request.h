// CustomBatchRequest: the base of batch requests that are not index lists; a DataLoader asks
// one only for its size() (to tell a short last batch for drop_last).
#pragma once

#include <cstddef>

namespace torch::data::samplers {

struct CustomBatchRequest {
  virtual ~CustomBatchRequest() = default;
  /// The number of examples requested.
  virtual size_t size() const = 0;
};

}  // namespace torch::data::samplers
