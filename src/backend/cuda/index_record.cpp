// See index_record.h.
#include "backend/cuda/index_record.h"

#include "ember/creation.h"

namespace ember::cuda {

Tensor new_index_record(Device device) { return zeros({2}, {.dtype = kInt64, .device = device}); }

std::array<int64_t, 2> read_index_record(const Tensor& record) {
  const Tensor host = record.cpu();
  return {host.data_ptr<int64_t>()[0], host.data_ptr<int64_t>()[1]};
}

}  // namespace ember::cuda
