// What the distributed checkpoint tests share: exact tensor comparison inside a rank (on_ranks is
// in dist_test_support.h).
#pragma once

#include <string>
#include <vector>

#include "distributed/dist_test_support.h"

namespace ember::test {

inline std::vector<int64_t> dims(const Tensor& t) { return {t.sizes().begin(), t.sizes().end()}; }

/// Fails the rank unless got has want's shape and exactly its values.
inline void require_equal(const Tensor& got, const Tensor& want, const std::string& what) {
  require(dims(got) == dims(want), what + ": shape");
  require(values(got) == values(want),
          what + ": got " + show(values(got)) + "want " + show(values(want)));
}

}  // namespace ember::test
