// Builds a tensor, takes views and copies through the installed headers and library; exits
// non-zero (with a message) if any result is wrong.
#include <ember/ember.h>

#include <cstdio>
#include <vector>

int main() {
  using namespace ember;
  using namespace ember::indexing;
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});  // (2, 3) int64
  Tensor col = t.index({Slice(), -1});        // a view: [3, 6]
  Tensor c = t.t().contiguous();              // a copy: [[1, 4], [2, 5], [3, 6]]
  const bool ok = t.dtype() == kInt64 && t.sizes() == std::vector<int64_t>{2, 3} &&
                  col.index({1}).item<int64_t>() == 6 && col.storage_offset() == 2 &&
                  c.strides() == std::vector<int64_t>{2, 1} &&
                  c.index({0, 1}).item<int64_t>() == 4 && zeros({2, 3}).numel() == 6;
  std::printf("ember consumer: %s\n", ok ? "ok" : "WRONG RESULTS");
  return ok ? 0 : 1;
}
