// ember::dist — PyTorch's torch.distributed for CPU tensors over Gloo (TCP):
//   dist::init_process_group({.backend = "gloo"});   // env://: RANK, WORLD_SIZE, MASTER_ADDR/PORT
//   dist::all_reduce(t);  dist::barrier();  dist::destroy_process_group();
// Every collective runs on the group's own thread (async_op returns at once with a Work), is
// numbered in its group (#1, #2, ...), and fails with an ember::Error that names the op, its
// number, this rank and the peer(s): "[all_reduce #41] rank 0: rank 1 closed the connection
// (peer died?)". After an error the group is unusable, and says so on every later call.
// Ranks in messages and in `ranks()` are global ranks; collective arguments (src, dst) are ranks
// in the group, as in PyTorch.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"
#include "ember/tensor.h"

namespace ember::dist {

enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };
const char* reduce_op_name(ReduceOp op);

/// An operation in flight. Synchronous calls return one that is already complete.
class Work {
 public:
  Work() = default;
  /// Blocks until the operation is done; rethrows its error.
  void wait() const;
  bool is_completed() const;
  /// Completed without an error.
  bool is_success() const;

  struct State;
  explicit Work(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

/// A group of ranks (a value; copies share the group). The default-constructed one stands for
/// the default group (the one init_process_group made).
class ProcessGroup {
 public:
  ProcessGroup() = default;
  /// This process's rank in the group (-1 when it is not a member).
  int rank() const;
  int size() const;
  /// The global rank of each member, in group order.
  const std::vector<int>& ranks() const;
  const std::string& backend() const;
  bool is_member() const { return rank() >= 0; }

  struct Impl;
  explicit ProcessGroup(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

/// PyTorch's default process-group timeout.
inline constexpr std::chrono::milliseconds kDefaultPgTimeout = std::chrono::minutes(30);

struct InitOptions {
  std::string backend = "gloo";
  /// "env://" (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), "tcp://host:port" or
  /// "file:///path". Ignored when `store` is given.
  std::string init_method = "env://";
  /// Bound for rendezvous and for every collective.
  std::chrono::milliseconds timeout = kDefaultPgTimeout;
  /// -1: from RANK / WORLD_SIZE.
  int world_size = -1;
  int rank = -1;
  /// Rendezvous through this store instead of init_method.
  std::shared_ptr<Store> store = nullptr;
};

/// Joins the default group; every rank must call it. A rank that does not arrive within the
/// timeout is named in the error on the others.
void init_process_group(const InitOptions& options = {});
bool is_initialized();
/// Leaves the default group and every group made by new_group.
void destroy_process_group();
/// The default group's rank / size (errors before init_process_group).
int get_rank(const ProcessGroup& group = {});
int get_world_size(const ProcessGroup& group = {});
/// A group of the given global ranks (all of them when empty). Every rank of the default group
/// must call it, in the same order, members or not (as in PyTorch).
ProcessGroup new_group(const std::vector<int>& ranks = {},
                       std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());

struct CollectiveOptions {
  ReduceOp op = ReduceOp::SUM;  // for the reducing collectives
  ProcessGroup group = {};      // the default group unless given
  bool async_op = false;        // return at once; Work::wait() finishes it
};

/// Reduces `tensor` over the group, in place on every rank.
Work all_reduce(Tensor& tensor, const CollectiveOptions& options = {});
/// Copies rank src's tensor into every rank's.
Work broadcast(Tensor& tensor, int src, const CollectiveOptions& options = {});
/// Reduces into rank dst's tensor (the other ranks' tensors are left unchanged).
Work reduce(Tensor& tensor, int dst, const CollectiveOptions& options = {});
/// output[i] = rank i's input; every output has the input's shape and dtype.
Work all_gather(std::vector<Tensor>& outputs, const Tensor& input,
                const CollectiveOptions& options = {});
/// The inputs concatenated along dim 0 into `output` (size world * input's).
Work all_gather_into_tensor(Tensor& output, const Tensor& input,
                            const CollectiveOptions& options = {});
/// output = the reduction over ranks of inputs[rank].
Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                    const CollectiveOptions& options = {});
/// output = the reduction of the rank-th dim-0 chunk of `input` (size world * output's).
Work reduce_scatter_tensor(Tensor& output, const Tensor& input,
                           const CollectiveOptions& options = {});
/// outputs[i] = rank i's inputs[this rank]; sizes may differ per pair.
Work all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                const CollectiveOptions& options = {});
/// Equal dim-0 chunks of input go to each rank; output gets each rank's chunk for this rank.
Work all_to_all_single(Tensor& output, const Tensor& input, const CollectiveOptions& options = {});
/// On dst, outputs[i] = rank i's input (outputs is ignored on the other ranks).
Work gather(const Tensor& input, std::vector<Tensor>& outputs, int dst,
            const CollectiveOptions& options = {});
/// output = src's inputs[this rank] (inputs is ignored on the other ranks).
Work scatter(Tensor& output, const std::vector<Tensor>& inputs, int src,
             const CollectiveOptions& options = {});
Work barrier(const CollectiveOptions& options = {});
/// A barrier through the store that names every rank that did not arrive within the timeout
/// (default: the group's); rank 0 checks them all, the others wait for its verdict.
void monitored_barrier(const ProcessGroup& group = {},
                       std::chrono::milliseconds timeout = std::chrono::milliseconds::zero());

/// Point to point; dst/src are ranks in the group, tag matches a send with its recv.
void send(const Tensor& tensor, int dst, const ProcessGroup& group = {}, int tag = 0);
void recv(Tensor& tensor, int src, const ProcessGroup& group = {}, int tag = 0);
Work isend(const Tensor& tensor, int dst, const ProcessGroup& group = {}, int tag = 0);
Work irecv(Tensor& tensor, int src, const ProcessGroup& group = {}, int tag = 0);

}  // namespace ember::dist
