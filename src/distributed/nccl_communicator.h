// One NCCL communicator of a group on one device: the "nccl" backend's DeviceCommunicator
// (distributed/device_communicator.h), which the process group builds on a device's first
// collective. Bootstrap through the group's store (rank 0's ncclUniqueId, distributed/nccl_id.h),
// collectives queued on a dedicated stream that waits for the caller's current stream and that
// the current stream waits for in turn (so the tensors are ready before and not reused until NCCL
// is done, without recordStream), and a watchdog thread (distributed/nccl_watchdog.h) that aborts
// the communicator on an async error or a collective past the timeout; the next call then throws
// that error. Compiled only in a CUDA build with NCCL.
#pragma once

#include <string>

#include "distributed/device_communicator.h"
#include "distributed/nccl_watchdog.h"

struct ncclComm;
struct CUstream_st;

namespace ember::cuda {

class NcclCommunicator final : public dist::DeviceCommunicator, public dist::WatchedCommunicator {
 public:
  /// Every rank of the group calls it with the same store (its id key is "nccl_id/0").
  explicit NcclCommunicator(const dist::DeviceCommunicatorConfig& config);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // DeviceCommunicator: contiguous tensors on the communicator's device.
  void all_reduce(const Tensor& t, dist::ReduceOp op, int64_t seq) override;
  void broadcast(const Tensor& t, int root, int64_t seq) override;
  void all_gather(const Tensor& out, const Tensor& in, int64_t seq) override;
  void reduce_scatter(const Tensor& out, const Tensor& in, dist::ReduceOp op,
                      int64_t seq) override;
  /// cudaStreamSynchronize of the NCCL stream.
  void synchronize() override;
  std::string error() override { return watchdog_.error(); }

  int rank() const { return rank_; }
  int size() const { return size_; }

  // WatchedCommunicator, for the watchdog: ncclCommGetAsyncError and ncclCommAbort.
  std::string async_error() override;
  void abort() override;

 private:
  template <class Enqueue>
  void collective(const char* op, int64_t seq, const Tensor& t, Enqueue&& enqueue);

  int rank_, size_, device_;
  dist::NcclWatchdog::Prefix prefix_;
  ncclComm* comm_ = nullptr;
  CUstream_st* stream_ = nullptr;  // the dedicated NCCL stream
  dist::WatchdogThread watchdog_;
};

/// Registers the "nccl" backend (device_communicator.cpp calls it in a build with NCCL).
void register_nccl_backend();

}  // namespace ember::cuda
