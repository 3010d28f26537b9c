// See nccl_communicator.h.
#include "distributed/nccl_communicator.h"

#include <nccl.h>

#include <memory>

#include "ember/cuda.h"

#include "backend/cuda/runtime.h"
#include "distributed/nccl_id.h"

namespace ember::cuda {
namespace {

// How often the watchdog looks; a hang is reported at most this late after the timeout.
constexpr auto kWatchdogPeriod = std::chrono::milliseconds(100);

// "[op #seq] rank r: ", as the process group's prefix, for a communicator built without one.
std::string plain_prefix(int rank, const std::string& op, int64_t seq) {
  return "[" + op + " #" + std::to_string(seq) + "] rank " + std::to_string(rank) + ": ";
}

ncclDataType_t nccl_type(Dtype t, const char* op) {
  switch (t) {
    case kFloat32:
      return ncclFloat32;
    case kFloat64:
      return ncclFloat64;
    case kFloat16:
      return ncclFloat16;
    case kBFloat16:
      return ncclBfloat16;
    case kInt32:
      return ncclInt32;
    case kInt64:
      return ncclInt64;
    case kInt8:
      return ncclInt8;
    case kUInt8:
    case kBool:
      return ncclUint8;  // bytes, as c10d does for bool
    default:
      fail(op, "NCCL has no ", dtype_name(t), " type");
  }
}

ncclRedOp_t nccl_op(dist::ReduceOp op) {
  switch (op) {
    case dist::ReduceOp::SUM:
      return ncclSum;
    case dist::ReduceOp::AVG:
      return ncclAvg;
    case dist::ReduceOp::PRODUCT:
      return ncclProd;
    case dist::ReduceOp::MIN:
      return ncclMin;
    case dist::ReduceOp::MAX:
      return ncclMax;
  }
  return ncclSum;
}

// A CUDA event owned by the watchdog's entry for one collective.
using SharedEvent = std::shared_ptr<CUevent_st>;
SharedEvent new_event(const char* op) {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), op, " creating an event");
  return SharedEvent(e, [](cudaEvent_t ev) { (void)cudaEventDestroy(ev); });
}

}  // namespace

NcclCommunicator::NcclCommunicator(const dist::DeviceCommunicatorConfig& config)
    : rank_(config.rank),
      size_(config.size),
      device_(resolve_device(config.device, "nccl")),
      prefix_(config.prefix ? config.prefix
                            : [rank = config.rank](const std::string& op, int64_t seq) {
                                return plain_prefix(rank, op, seq);
                              }),
      watchdog_(*this, config.timeout, prefix_, kWatchdogPeriod) {
  const std::string id = dist::exchange_nccl_unique_id(*config.store, rank_, 0, [] {
    ncclUniqueId uid;
    const ncclResult_t r = ncclGetUniqueId(&uid);
    EMBER_CHECK(r == ncclSuccess, "nccl", "ncclGetUniqueId: ", ncclGetErrorString(r));
    return std::string(uid.internal, sizeof(uid.internal));
  });
  ncclUniqueId uid;
  static_assert(sizeof(uid.internal) == dist::kNcclUniqueIdBytes);
  std::copy(id.begin(), id.end(), uid.internal);
  DeviceGuard guard(device_, "nccl");
  const ncclResult_t r = ncclCommInitRank(&comm_, size_, uid, rank_);
  EMBER_CHECK(r == ncclSuccess, "nccl", "rank ", rank_, ": ncclCommInitRank on cuda:", device_,
              " (", size_, " ranks): ", ncclGetErrorString(r));
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "nccl",
        " creating the NCCL stream on cuda:", device_);
  watchdog_.start();
}

NcclCommunicator::~NcclCommunicator() {
  watchdog_.stop();  // it asks comm_ for errors until now
  // An aborted communicator is already gone; a healthy one finishes its queued work first.
  if (!watchdog_.aborted()) (void)ncclCommDestroy(comm_);
  (void)cudaStreamDestroy(stream_);
}

std::string NcclCommunicator::async_error() {
  ncclResult_t status = ncclSuccess;
  const ncclResult_t r = ncclCommGetAsyncError(comm_, &status);
  if (r != ncclSuccess) return std::string("ncclCommGetAsyncError: ") + ncclGetErrorString(r);
  if (status == ncclSuccess || status == ncclInProgress) return "";
  return std::string(ncclGetErrorString(status)) + ": " + ncclGetLastError(comm_);
}

void NcclCommunicator::abort() { (void)ncclCommAbort(comm_); }

void NcclCommunicator::synchronize() {
  DeviceGuard guard(device_, "nccl");
  check(cudaStreamSynchronize(stream_), "nccl", " waiting for the NCCL stream on cuda:", device_);
}

// Note [NCCL stream ordering]: the NCCL stream waits for the caller's current stream (the
// inputs are written), the collective runs there, and the current stream waits for its end (the
// outputs are read, and the caching allocator reuses the tensors only after it). The watchdog
// watches the end event. So Work::wait() has nothing left to order: the process group's Work of
// an nccl collective is complete once it is enqueued, as c10d's wait() only orders the stream.
template <class Enqueue>
void NcclCommunicator::collective(const char* op, int64_t seq, const Tensor& t,
                                  Enqueue&& enqueue) {
  // The group checks these first; a direct caller (tests/cuda/nccl_test.cpp) gets them here.
  EMBER_CHECK(t.device().is_cuda() && t.device().index() == device_, op, "rank ", rank_,
              ": expected a tensor on cuda:", device_, ", got ", t.device());
  EMBER_CHECK(t.is_contiguous(), op, "rank ", rank_, ": expected a contiguous tensor");
  // One thread calls a communicator's collectives, as NCCL requires (the group's caller); the
  // watchdog only reads the end events and may abort from its own thread.
  if (const std::string earlier = watchdog_.error(); !earlier.empty())
    throw Error(prefix_(op, seq) + "the NCCL communicator is unusable after an earlier error (" +
                earlier + ")");
  DeviceGuard guard(device_, op);
  const cudaStream_t compute = current_stream_handle(device_);
  const SharedEvent ready = new_event(op), end = new_event(op);
  check(cudaEventRecord(ready.get(), compute), op, " recording the inputs' event");
  check(cudaStreamWaitEvent(stream_, ready.get(), 0), op, " ordering the NCCL stream");
  const ncclResult_t r = enqueue(stream_);
  if (r != ncclSuccess && r != ncclInProgress)
    throw Error(prefix_(op, seq) + "NCCL error: " + ncclGetErrorString(r) + ": " +
                ncclGetLastError(comm_));
  check(cudaEventRecord(end.get(), stream_), op, " recording the collective's end");
  check(cudaStreamWaitEvent(compute, end.get(), 0), op, " ordering the current stream");
  watchdog_.started(seq, op, [end] { return cudaEventQuery(end.get()) == cudaSuccess; });
}

void NcclCommunicator::all_reduce(const Tensor& t, dist::ReduceOp op, int64_t seq) {
  const ncclDataType_t type = nccl_type(t.dtype(), "all_reduce");
  collective("all_reduce", seq, t, [&](cudaStream_t s) {
    return ncclAllReduce(t.data_ptr(), t.data_ptr(), size_t(t.numel()), type, nccl_op(op), comm_,
                         s);
  });
}

void NcclCommunicator::broadcast(const Tensor& t, int root, int64_t seq) {
  const ncclDataType_t type = nccl_type(t.dtype(), "broadcast");
  collective("broadcast", seq, t, [&](cudaStream_t s) {
    return ncclBroadcast(t.data_ptr(), t.data_ptr(), size_t(t.numel()), type, root, comm_, s);
  });
}

void NcclCommunicator::all_gather(const Tensor& out, const Tensor& in, int64_t seq) {
  EMBER_CHECK(out.numel() == in.numel() * size_ && out.dtype() == in.dtype() &&
                  out.is_contiguous() && out.device() == in.device(),
              "all_gather", "rank ", rank_, ": expected a contiguous output of ", size_,
              " x ", in.numel(), " ", in.dtype(), " elements on ", in.device(), ", got ",
              out.numel(), " ", out.dtype());
  const ncclDataType_t type = nccl_type(in.dtype(), "all_gather");
  collective("all_gather", seq, in, [&](cudaStream_t s) {
    return ncclAllGather(in.data_ptr(), out.data_ptr(), size_t(in.numel()), type, comm_, s);
  });
}

void NcclCommunicator::reduce_scatter(const Tensor& out, const Tensor& in, dist::ReduceOp op,
                                      int64_t seq) {
  EMBER_CHECK(in.numel() == out.numel() * size_ && out.dtype() == in.dtype() &&
                  out.is_contiguous() && out.device() == in.device(),
              "reduce_scatter", "rank ", rank_, ": expected a contiguous output of ",
              in.numel(), " / ", size_, " ", in.dtype(), " elements on ", in.device(), ", got ",
              out.numel(), " ", out.dtype());
  const ncclDataType_t type = nccl_type(in.dtype(), "reduce_scatter");
  collective("reduce_scatter", seq, in, [&](cudaStream_t s) {
    return ncclReduceScatter(in.data_ptr(), out.data_ptr(), size_t(out.numel()), type, nccl_op(op),
                             comm_, s);
  });
}

void register_nccl_backend() {
  dist::register_device_backend(
      "nccl", {.device_type = kCUDA,
               .create =
                   [](const dist::DeviceCommunicatorConfig& config) {
                     return std::unique_ptr<dist::DeviceCommunicator>(
                         std::make_unique<NcclCommunicator>(config));
                   },
               // c10d's choice for a barrier before any collective named a device.
               .default_device =
                   [](int group_rank) {
                     const int count = ember::cuda::device_count();
                     return Device(kCUDA, count > 0 ? group_rank % count : 0);
                   }});
}

}  // namespace ember::cuda
