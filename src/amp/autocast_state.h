// The calling thread's autocast state and the pieces the op-entry hook uses: which policy an op
// has on a device, which inputs are eligible, and the cast with the weight-cast cache.
#pragma once

#include <optional>

#include "amp/policy_table.h"
#include "ember/tensor.h"

namespace ember::amp::detail {

/// The policy of ember's op `op` (a name such as "linear", "cross_entropy") on `device`, read
/// from the device's PyTorch table; ember names that differ from PyTorch's are mapped (a short
/// alias list in autocast.cpp). Memoised per thread by the name's address.
std::optional<CastPolicy> op_policy(const char* op, DeviceType device);

/// PyTorch's is_eligible: a defined floating tensor on `device`, not float64.
bool eligible(const Tensor& t, DeviceType device);

/// t cast to `dtype` (t itself when not eligible or already `dtype`). A float32 leaf that
/// requires grad, is not a view, cast to the region's lower dtype with the cache enabled, is
/// cast once per region (PyTorch's cached_cast).
Tensor cached_cast(Dtype dtype, const Tensor& t, DeviceType device);

/// A region starts / ends in the calling thread: the outermost one installs the op-entry
/// hook (core/op_entry.h) and, when it ends, clears the cache and removes the hook.
void enter_region();
void leave_region();

/// How many casts cached_cast has performed in this thread (tests of the cache count them).
int64_t casts_performed();

}  // namespace ember::amp::detail
