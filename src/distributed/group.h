// ProcessGroup::Impl: one group's rendezvous, its Gloo context, the thread that runs its
// collectives in order, the sequence counter that numbers (and tags) them, and the first error,
// after which the group refuses every call.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed/process_group.h"

namespace gloo {
class Context;
}

namespace ember::dist {

class SharedMemoryAllReduce;
class DeviceCommunicator;
struct DeviceBackend;

/// What one call looks like, for messages and for the debug mode's comparison across ranks.
struct CollectiveCall {
  std::string op;              // "all_reduce"
  std::string signature;       // "float32 [4], SUM" — compared across ranks in the debug mode
  std::vector<int> peers;      // group ranks this rank waits for (empty: every other rank)
};

struct ProcessGroup::Impl {
  struct Config {
    std::shared_ptr<Store> store;  // already namespaced for this group
    // The job's store, where "gone/<global rank>" appears when a rank's watched store
    // connection closes (TCPStore::watch_connection), and "gave_up/<global rank>" when a rank
    // gives up on a closed connection; null when the store cannot watch.
    std::shared_ptr<Store> job_store;
    int rank = 0;                  // in the group
    int size = 1;
    std::vector<int> global_ranks;  // group rank -> global rank
    std::string name;               // "" for the default group, "group 1" ...
    std::string interface_address;  // where Gloo listens
    std::chrono::milliseconds timeout = kDefaultPgTimeout;
    bool debug = false;  // EMBER_DISTRIBUTED_DEBUG=DETAIL
    std::string creator = "init_process_group";  // names the rendezvous in its errors
    // "gloo", or a registered device backend ("nccl"; device_communicator.h), which then carries
    // every collective instead of a Gloo mesh.
    std::string backend = "gloo";
  };

  /// Rendezvous (a missing rank is named) and the Gloo full mesh; every member calls it.
  explicit Impl(Config config);
  /// A placeholder for a rank that is not in the group.
  Impl(std::vector<int> global_ranks, std::string name);
  ~Impl();

  /// Numbers the call, checks the group is usable, and runs body on the group's thread, where
  /// gloo errors become messages naming the op, number, rank and peers. Waits unless async.
  Work run(CollectiveCall call, bool async, std::function<void(uint32_t tag)> body);

  /// Point-to-point: body posts on the calling thread and returns what to wait for; the waiting
  /// happens on the group's second thread, so sends and receives never wait behind each other.
  Work run_p2p(CollectiveCall call, bool async, std::function<std::function<void()>()> post);

  /// A device backend's call: numbered like run's, refused once the group is broken (a
  /// communicator's watchdog error breaks it too), and run on the calling thread, whose current
  /// stream orders the device's work (Note [NCCL stream ordering]); the Work is complete once
  /// the body has enqueued. body gets the communicator of `device` (built on its first call)
  /// and the call's number. Its errors break the group; async returns them in the Work.
  Work run_on_device(CollectiveCall call, bool async, Device device,
                     std::function<void(DeviceCommunicator&, int64_t seq)> body);
  /// The device of a collective without tensors (barrier): the last one a collective used, else
  /// the backend's default for this rank.
  Device barrier_device() const;

  /// "[op #seq] rank r: " for this group.
  std::string prefix(const std::string& op, int64_t seq) const;
  /// "rank 3" (a global rank) for group rank r.
  std::string rank_name(int group_rank) const;
  [[noreturn]] void refuse_if_not_member(const std::string& op) const;

  Config config;
  std::string backend = "gloo";
  const DeviceBackend* device_backend = nullptr;  // null: Gloo
  std::shared_ptr<gloo::Context> context;
  std::atomic<int64_t> sequence{0};
  int64_t p2p_sequence = 0;

  // The first error; after it the group is broken.
  std::mutex error_mutex;
  std::string first_error;
  bool broken() {
    std::lock_guard lock(error_mutex);
    return !first_error.empty();
  }
  void record_error(const std::string& message);

  std::map<std::string, int> rank_of_address;  // a peer's Gloo address as its errors print it
  // Group rank -> this rank's end of the pair: (socket, its address as Gloo prints it), or -1.
  std::vector<std::pair<int, std::string>> pair_sockets;
  // When every member runs on this host: all_reduce through shared memory (shared_memory.h).
  std::unique_ptr<SharedMemoryAllReduce> shared_memory;

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::function<void()>> tasks;
    bool stopping = false;
    bool busy = false;  // a task is running (on the thread, or inline on a caller)
    std::thread thread;
    void start();
    void push(std::function<void()> task);
    /// Runs task on the calling thread when nothing is queued or running (so order holds), and
    /// says whether it did: a synchronous call then costs no thread hand-off.
    bool run_inline_if_idle(const std::function<void()>& task);
    void stop();
  };
  Queue collectives_, p2p_waits_;
  // A device backend's communicators by device index, built in the order the collectives first
  // named their device (the same on every member), which numbers their store namespaces.
  std::map<int, std::unique_ptr<DeviceCommunicator>> device_comms_;
  // Held by a device call from numbering to enqueue: callers on several threads enqueue in the
  // order of their numbers, one at a time, as NCCL requires of a communicator.
  std::mutex device_mutex_;
  // The index of the device the last call used (of the backend's type); kNoDevice before.
  static constexpr int kNoDevice = -2;
  std::atomic<int> last_device_{kNoDevice};
  DeviceCommunicator& device_communicator(Device device, const std::string& op, int64_t seq);

  void rendezvous();
  void connect_mesh();
  std::string describe_failure(const std::string& what, const CollectiveCall& call) const;
  std::vector<int> departed_peers() const;
  std::vector<int> hung_up_peers() const;
  int blamed_by(int group_rank) const;
  void leave_note(int blamed) const;
  std::string describe_departures(const std::vector<int>& gone) const;
  std::string check_usable(const std::string& op, int64_t seq);
};

/// The Impl of `group`, or of the default group; errors when there is none or this rank is not a
/// member.
ProcessGroup::Impl& resolve_group(const ProcessGroup& group, const char* op);

/// Parses EMBER_DISTRIBUTED_DEBUG / TORCH_DISTRIBUTED_DEBUG.
bool debug_mode_from_environment();

/// The debug mode's fingerprint exchange for call number seq (debug.cpp).
void check_fingerprints(ProcessGroup::Impl& group, const CollectiveCall& call, int64_t seq);
/// Marks this rank's departure, so the others' debug checks can name it.
void announce_departure(ProcessGroup::Impl& group);

}  // namespace ember::dist
