// See nccl_communicator.h.
#include "distributed/nccl_communicator.h"

#include <nccl.h>

#include <memory>

#include "backend/cuda/runtime.h"
#include "distributed/nccl_id.h"

namespace ember::cuda {
namespace {

// How often the watchdog looks; a hang is reported at most this late after the timeout.
constexpr auto kWatchdogPeriod = std::chrono::milliseconds(100);

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
using Event = std::shared_ptr<CUevent_st>;
Event new_event(const char* op) {
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), op, " creating an event");
  return Event(e, [](cudaEvent_t ev) { (void)cudaEventDestroy(ev); });
}

}  // namespace

NcclCommunicator::NcclCommunicator(dist::Store& store, int rank, int size, Device device,
                                   std::chrono::milliseconds timeout, uint64_t comm_index)
    : rank_(rank),
      size_(size),
      device_(resolve_device(device, "nccl")),
      watchdog_(*this, timeout,
                [this](const std::string& op, int64_t seq) { return prefix(op, seq); }) {
  const std::string id = dist::exchange_nccl_unique_id(store, rank, comm_index, [] {
    ncclUniqueId uid;
    const ncclResult_t r = ncclGetUniqueId(&uid);
    EMBER_CHECK(r == ncclSuccess, "nccl", "ncclGetUniqueId: ", ncclGetErrorString(r));
    return std::string(uid.internal, sizeof(uid.internal));
  });
  ncclUniqueId uid;
  static_assert(sizeof(uid.internal) == dist::kNcclUniqueIdBytes);
  std::copy(id.begin(), id.end(), uid.internal);
  DeviceGuard guard(device_, "nccl");
  const ncclResult_t r = ncclCommInitRank(&comm_, size, uid, rank);
  EMBER_CHECK(r == ncclSuccess, "nccl", "rank ", rank, ": ncclCommInitRank on cuda:", device_, " (",
              size, " ranks): ", ncclGetErrorString(r));
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "nccl",
        " creating the NCCL stream on cuda:", device_);
  thread_ = std::thread([this] { watch(); });
}

NcclCommunicator::~NcclCommunicator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
  // An aborted communicator is already gone; a healthy one finishes its queued work first.
  if (!watchdog_.aborted()) (void)ncclCommDestroy(comm_);
  (void)cudaStreamDestroy(stream_);
}

void NcclCommunicator::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (auto error = watchdog_.poll(dist::NcclWatchdog::Clock::now())) error_ = *error;
    stop_.wait_for(lock, kWatchdogPeriod, [this] { return stopping_; });
  }
}

std::string NcclCommunicator::async_error() {
  ncclResult_t status = ncclSuccess;
  const ncclResult_t r = ncclCommGetAsyncError(comm_, &status);
  if (r != ncclSuccess) return std::string("ncclCommGetAsyncError: ") + ncclGetErrorString(r);
  if (status == ncclSuccess || status == ncclInProgress) return "";
  return std::string(ncclGetErrorString(status)) + ": " + ncclGetLastError(comm_);
}

void NcclCommunicator::abort() { (void)ncclCommAbort(comm_); }

// "[op #seq] rank r: ", as the Gloo backend's messages begin (ProcessGroup::Impl::prefix).
std::string NcclCommunicator::prefix(const std::string& op, int64_t seq) const {
  return "[" + op + " #" + std::to_string(seq) + "] rank " + std::to_string(rank_) + ": ";
}

// Note [NCCL stream ordering]: the NCCL stream waits for the caller's current stream (the
// inputs are written), the collective runs there, and the current stream waits for its end (the
// outputs are read, and the caching allocator reuses the tensors only after it). The watchdog
// watches the end event.
template <class Enqueue>
void NcclCommunicator::collective(const char* op, const Tensor& t, Enqueue&& enqueue) {
  EMBER_CHECK(t.device().is_cuda() && t.device().index() == device_, op, "rank ", rank_,
              ": expected a tensor on cuda:", device_, ", got ", t.device());
  EMBER_CHECK(t.is_contiguous(), op, "rank ", rank_, ": expected a contiguous tensor");
  // The lock is not held while NCCL enqueues (which can block behind a hung peer), so the
  // watchdog can still abort; one thread calls a communicator's collectives, as NCCL requires.
  int64_t seq;
  {
    std::lock_guard lock(mutex_);
    seq = ++sequence_;
    if (!error_.empty())
      throw Error(prefix(op, seq) + "the NCCL communicator is unusable after an earlier error (" +
                  error_ + ")");
  }
  DeviceGuard guard(device_, op);
  const cudaStream_t compute = current_stream_handle(device_);
  const Event ready = new_event(op), end = new_event(op);
  check(cudaEventRecord(ready.get(), compute), op, " recording the inputs' event");
  check(cudaStreamWaitEvent(stream_, ready.get(), 0), op, " ordering the NCCL stream");
  const ncclResult_t r = enqueue(stream_);
  if (r != ncclSuccess && r != ncclInProgress)
    throw Error(prefix(op, seq) + "NCCL error: " + ncclGetErrorString(r) + ": " +
                ncclGetLastError(comm_));
  check(cudaEventRecord(end.get(), stream_), op, " recording the collective's end");
  check(cudaStreamWaitEvent(compute, end.get(), 0), op, " ordering the current stream");
  std::lock_guard lock(mutex_);
  watchdog_.started(
      seq, op, [end] { return cudaEventQuery(end.get()) == cudaSuccess; },
      dist::NcclWatchdog::Clock::now());
}

void NcclCommunicator::all_reduce(const Tensor& t, dist::ReduceOp op) {
  const ncclDataType_t type = nccl_type(t.dtype(), "all_reduce");
  collective("all_reduce", t, [&](cudaStream_t s) {
    return ncclAllReduce(t.data_ptr(), t.data_ptr(), size_t(t.numel()), type, nccl_op(op), comm_,
                         s);
  });
}

void NcclCommunicator::broadcast(const Tensor& t, int root) {
  const ncclDataType_t type = nccl_type(t.dtype(), "broadcast");
  collective("broadcast", t, [&](cudaStream_t s) {
    return ncclBroadcast(t.data_ptr(), t.data_ptr(), size_t(t.numel()), type, root, comm_, s);
  });
}

void NcclCommunicator::all_gather(const Tensor& out, const Tensor& in) {
  EMBER_CHECK(out.numel() == in.numel() * size_ && out.dtype() == in.dtype() &&
                  out.is_contiguous() && out.device() == in.device(),
              "all_gather", "rank ", rank_, ": expected a contiguous output of ", size_, " x ",
              in.numel(), " ", in.dtype(), " elements on ", in.device(), ", got ", out.numel(), " ",
              out.dtype());
  const ncclDataType_t type = nccl_type(in.dtype(), "all_gather");
  collective("all_gather", in, [&](cudaStream_t s) {
    return ncclAllGather(in.data_ptr(), out.data_ptr(), size_t(in.numel()), type, comm_, s);
  });
}

void NcclCommunicator::reduce_scatter(const Tensor& out, const Tensor& in, dist::ReduceOp op) {
  EMBER_CHECK(in.numel() == out.numel() * size_ && out.dtype() == in.dtype() &&
                  out.is_contiguous() && out.device() == in.device(),
              "reduce_scatter", "rank ", rank_, ": expected a contiguous output of ", in.numel(),
              " / ", size_, " ", in.dtype(), " elements on ", in.device(), ", got ", out.numel(),
              " ", out.dtype());
  const ncclDataType_t type = nccl_type(in.dtype(), "reduce_scatter");
  collective("reduce_scatter", in, [&](cudaStream_t s) {
    return ncclReduceScatter(in.data_ptr(), out.data_ptr(), size_t(out.numel()), type, nccl_op(op),
                             comm_, s);
  });
}

}  // namespace ember::cuda
