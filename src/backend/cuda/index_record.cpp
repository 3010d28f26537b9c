// See index_record.h.
#include "backend/cuda/index_record.h"

#include "backend/buffers.h"

namespace ember::cuda {

Tensor new_index_record(Device device) { return backend::new_zeros({2}, kInt64, device); }

std::array<int64_t, 2> read_index_record(const Tensor& record) {
  const Tensor host = record.cpu();
  return {host.data_ptr<int64_t>()[0], host.data_ptr<int64_t>()[1]};
}

}  // namespace ember::cuda
