// One NCCL communicator of a group on one device: the piece the nccl ProcessGroup backend will
// stand on (it is not wired into init_process_group yet). Bootstrap through the group's store
// (rank 0's ncclUniqueId, distributed/nccl_id.h), collectives queued on a dedicated stream that
// waits for the caller's current stream and that the current stream waits for in turn (so the
// tensors are ready before and not reused until NCCL is done, without recordStream), and a
// watchdog thread (distributed/nccl_watchdog.h) that aborts the communicator on an async error
// or a collective past the timeout; the next call then throws that error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "distributed/nccl_watchdog.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "ember/tensor.h"

struct ncclComm;
struct CUstream_st;

namespace ember::cuda {

class NcclCommunicator final : public dist::WatchedCommunicator {
 public:
  /// Every rank of the group calls it, with the group's store; `comm_index` numbers the
  /// group's communicators (the store key of their id).
  NcclCommunicator(dist::Store& store, int rank, int size, Device device,
                   std::chrono::milliseconds timeout, uint64_t comm_index = 0);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  /// In place over t (contiguous, on the communicator's device).
  void all_reduce(const Tensor& t, dist::ReduceOp op);
  void broadcast(const Tensor& t, int root);
  /// out (contiguous, size x in.numel() elements) = every rank's `in`, in rank order.
  void all_gather(const Tensor& out, const Tensor& in);
  /// out (in.numel() / size elements) = this rank's slice of the reduction of every `in`.
  void reduce_scatter(const Tensor& out, const Tensor& in, dist::ReduceOp op);

  int rank() const { return rank_; }
  int size() const { return size_; }

  // WatchedCommunicator, for the watchdog: ncclCommGetAsyncError and ncclCommAbort.
  std::string async_error() override;
  void abort() override;

 private:
  template <class Enqueue>
  void collective(const char* op, const Tensor& t, Enqueue&& enqueue);
  void watch();  // the watchdog thread
  std::string prefix(const std::string& op, int64_t seq) const;

  int rank_, size_, device_;
  ncclComm* comm_ = nullptr;
  CUstream_st* stream_ = nullptr;  // the dedicated NCCL stream
  int64_t sequence_ = 0;

  std::mutex mutex_;  // guards sequence_, watchdog_, error_, stopping_
  std::condition_variable stop_;
  dist::NcclWatchdog watchdog_;
  std::string error_;  // the watchdog's, once it aborted
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ember::cuda
