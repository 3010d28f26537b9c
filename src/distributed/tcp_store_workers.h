// Note [PyTorch's init/ counter]: PyTorch's TCPStore, when built with a world size, counts itself
// in its constructor: it adds 1 to the key "init/" — sent as it is, without the "/" that every
// other request puts before its key (c10d's initKey_ and keyPrefix_) — and the one that hosts the
// server then reads that key every 10 ms until it reaches the world size or the store's timeout
// passes (TCPStore::waitForWorkers, torch/csrc/distributed/c10d/TCPStore.cpp). c10d's env:// and
// tcp:// rendezvous build every rank's store that way (_create_c10d_store in
// torch/distributed/rendezvous.py: the world size given on every rank, rank 0 the server unless
// the launcher hosts it). PyTorch 1.13 and 2.0 go on silently when the timeout passes; later
// servers throw "Timed out after N seconds waiting for clients. k/N clients joined." (added by
// pytorch/pytorch#111805, late 2023; which release first has it was not checked). So a PyTorch
// rank 0 of a job with an ember rank in it waits out its whole timeout (30 minutes under
// init_process_group's default) or fails, unless the ember rank counts itself too. ember's ranks
// therefore count themselves once per env:// / tcp:// rendezvous, on whatever server hosts it, as
// PyTorch's do (on a torchrun agent's store nobody reads the count; ember's own server does not
// wait for it either).
#pragma once

#include <cstdint>

#include "ember/distributed/store.h"

namespace ember::dist::detail {

/// Adds 1 to `store`'s "init/" key, unprefixed, on a connection of its own, within the store's
/// timeout; returns the count after the add. Errors name `op`, `rank` and the store's address.
int64_t count_as_worker(const TCPStore& store, const char* op, int rank);

}  // namespace ember::dist::detail
