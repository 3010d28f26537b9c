// See nccl_id.h. One key per communicator rather than one per group: a group creates a
// communicator per device it uses (and PyTorch more for splits), each with a fresh id.
#include "distributed/nccl_id.h"

#include <exception>

#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::dist {

std::string exchange_nccl_unique_id(Store& store, int rank, uint64_t comm_index,
                                    const std::function<std::string()>& make_id) {
  const std::string key = std::to_string(comm_index);
  if (rank == 0) {
    std::string id = make_id();
    EMBER_CHECK(id.size() == kNcclUniqueIdBytes, "nccl", "rank 0: an ncclUniqueId has ",
                kNcclUniqueIdBytes, " bytes, got ", id.size(), " for key '", key, "'");
    store.set(key, id);
    return id;
  }
  std::string id = [&] {
    try {
      return store.get(key);
    } catch (const std::exception& e) {
      fail("nccl", "rank ", rank,
           " is setting up an NCCL communicator and retrieving ncclUniqueId "
           "from rank 0 via the store by key '",
           key, "', but store.get('", key, "') got error: ", e.what());
    }
  }();
  EMBER_CHECK(id.size() == kNcclUniqueIdBytes, "nccl", "rank ", rank,
              ": invalid size for ncclUniqueId under key '", key, "': expected ",
              kNcclUniqueIdBytes, " bytes, got ", id.size());
  return id;
}

}  // namespace ember::dist
