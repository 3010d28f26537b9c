// The NCCL communicator's bootstrap: rank 0's ncclUniqueId reaches every rank of the group through
// the group's store, as c10d's ProcessGroupNCCL::broadcastUniqueNCCLID does. Bytes only (no NCCL
// header), so the CPU-only build compiles and tests it; the NCCL backend passes ncclGetUniqueId.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ember::dist {

class Store;

/// NCCL_UNIQUE_ID_BYTES: an ncclUniqueId is 128 opaque bytes.
inline constexpr size_t kNcclUniqueIdBytes = 128;

/// The id of the group's `comm_index`-th communicator (0, 1, ... in creation order; every rank
/// creates them in the same order), under the store key "<comm_index>": rank 0 makes it with
/// `make_id` and sets it, the other ranks wait for it (up to the store's timeout). Every rank
/// returns the same 128 bytes; a timeout or an id of another size is an ember::Error "[nccl]"
/// naming the rank and the key.
std::string exchange_nccl_unique_id(Store& store, int rank, uint64_t comm_index,
                                    const std::function<std::string()>& make_id);

}  // namespace ember::dist
