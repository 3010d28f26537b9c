// All-reduce through shared memory for a group whose ranks all run on one host (same boot, same
// network namespace), instead of Gloo's loopback TCP. Same failure semantics as Gloo: a peer that
// dies is an error within milliseconds (its pid is checked while waiting), a peer that hangs is a
// timeout at the group's timeout. On by default when every rank is on this host and each maps
// the segment (otherwise all fall back to TCP together); EMBER_SHM=0 turns it off, EMBER_SHM=1
// makes it required. all_reduce, reduce_scatter and all_gather (FSDP's collectives) and
// broadcast (DDP's buffers before every forward) go this way; the other collectives stay on
// Gloo. bench/distributed_compare.sh has the figures.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "ember/distributed/process_group.h"

namespace ember::dist {

class SharedMemoryAllReduce {
 public:
  /// Every member calls it (after the group's rendezvous); null when the group uses TCP (see
  /// above). Errors for EMBER_SHM=1 without shared memory, naming the rank and the reason.
  static std::unique_ptr<SharedMemoryAllReduce> create(ProcessGroup::Impl& group);
  ~SharedMemoryAllReduce();

  /// data (numel elements of dtype) reduced in place over the group. `prefix` starts errors.
  void all_reduce(void* data, Dtype dtype, int64_t numel, ReduceOp op, const std::string& prefix);
  /// Rank r's output (numel elements) = the reduction of chunk r of every rank's input (world x
  /// numel), summed in rank order as all_reduce does. The input is only read.
  void reduce_scatter(const void* input, void* output, Dtype dtype, int64_t numel, ReduceOp op,
                      const std::string& prefix);
  /// Every rank's `bytes` of input, in rank order, into output (world x bytes).
  void all_gather(const void* input, void* output, int64_t bytes, const std::string& prefix);
  /// Rank src's `bytes` at data copied into every other rank's data.
  void broadcast(void* data, int64_t bytes, int src, const std::string& prefix);

  struct Segment;

 private:
  SharedMemoryAllReduce(ProcessGroup::Impl& group, std::unique_ptr<Segment> segment);
  void wait_for_phase(uint64_t phase, const std::string& prefix);
  ProcessGroup::Impl& group_;
  std::unique_ptr<Segment> segment_;
  uint64_t chunks_done_ = 0;  // chunks reduced so far (the same count on every rank)
};

}  // namespace ember::dist
