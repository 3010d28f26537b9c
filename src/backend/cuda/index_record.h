// The bad-index record of the kernels that check index entries or targets (gather.cpp, loss.cpp;
// block.cuh's record_bad_index): two int64 on the device, zeroed before the launch and read back
// after it. The read waits for the kernel: the price of raising the CPU kernels' ember::Error
// where PyTorch's kernels fail a device assert, which poisons the CUDA context.
#pragma once

#include <array>
#include <cstdint>

#include "ember/tensor.h"

namespace ember::cuda {

/// A zeroed record on `device`.
Tensor new_index_record(Device device);

/// `record` read back to the host: {0, 0}, or {1, an entry out of range}.
std::array<int64_t, 2> read_index_record(const Tensor& record);

}  // namespace ember::cuda
