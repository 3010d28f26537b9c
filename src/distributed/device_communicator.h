// The device seam of the process group: a backend other than Gloo ("nccl" in a CUDA build, a
// test's fake in the tests) is a DeviceCommunicator per device, registered under its backend name
// with the device type its tensors live on. A group made with that backend (init_process_group's
// InitOptions::backend, inherited by new_group) sends its collectives to the communicator of the
// tensors' device, built on first use by every member together (as c10d's ProcessGroupNCCL
// caches its communicators per device); a Gloo group takes CPU tensors as before. Either refuses
// a tensor on the other kind of device, naming the op, the rank and what it expected.
//
// The group numbers each call and keeps the first error (group.h); the communicator enqueues
// (NCCL: on its own stream, Note [NCCL stream ordering] in nccl_communicator.cpp) and watches
// what it enqueued with a WatchdogThread (nccl_watchdog.h), whose error then makes the group
// unusable, in the Gloo backend's words.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "distributed/nccl_watchdog.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "ember/tensor.h"

namespace ember::dist {

/// What a member builds its device communicator from; every member of the group builds one for
/// the same call, together.
struct DeviceCommunicatorConfig {
  std::shared_ptr<Store> store;  // the group's, namespaced per communicator: for the bootstrap
  int rank = 0;  // in the group
  int size = 1;
  Device device;
  std::chrono::milliseconds timeout;  // the group's: the watchdog aborts a collective past it
  NcclWatchdog::Prefix prefix;        // the group's "[op #seq] rank r (group g): "
};

/// One device's communicator. Each call enqueues collective number `seq` of the group (the
/// tensors are contiguous, on the communicator's device, checked by the group) and throws an
/// ember::Error naming prefix(op, seq) when it cannot.
class DeviceCommunicator {
 public:
  virtual ~DeviceCommunicator() = default;
  /// In place over t.
  virtual void all_reduce(const Tensor& t, ReduceOp op, int64_t seq) = 0;
  virtual void broadcast(const Tensor& t, int root, int64_t seq) = 0;
  /// out (size x in.numel() elements) = every rank's `in`, in rank order.
  virtual void all_gather(const Tensor& out, const Tensor& in, int64_t seq) = 0;
  /// out (in.numel() / size elements) = this rank's chunk of the reduction of every `in`.
  virtual void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op, int64_t seq) = 0;
  /// Blocks the calling thread until everything enqueued has finished (or was aborted).
  virtual void synchronize() = 0;
  /// The watchdog's error once it aborted the communicator; "" until then.
  virtual std::string error() = 0;
};

struct DeviceBackend {
  /// The device type of the tensors its collectives take.
  DeviceType device_type = kCUDA;
  /// Builds this member's communicator for config.device.
  std::function<std::unique_ptr<DeviceCommunicator>(const DeviceCommunicatorConfig&)> create;
  /// The device a collective without tensors (barrier) uses before any tensor named one.
  std::function<Device(int group_rank)> default_device;
};

/// Registers (or replaces) the backend `name` for init_process_group; "gloo" is not a device
/// backend. A CUDA build with NCCL registers "nccl" itself (device_communicator.cpp).
void register_device_backend(const std::string& name, DeviceBackend backend);
/// The registered backend `name`, or null.
const DeviceBackend* find_device_backend(const std::string& name);

/// Where a collective over host-side bookkeeping (DDP's shape check, bucket order and unused
/// flags; FSDP's norms and state-dict gathers) runs for `group`: the CPU for Gloo; for a device
/// backend `preferred` (the module's device) when the backend takes its device type, else the
/// device the group's collectives use (its barrier's). The caller copies there and back.
Device collective_device(const ProcessGroup& group, Device preferred);

}  // namespace ember::dist
