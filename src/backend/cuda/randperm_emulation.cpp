// The CPU emulation of randperm.cu: the iota and islands bodies over a grid loop (launch.cuh), and
// a stand-in for cub's radix sort, which is a library call on the device, not a body of ours: a
// stable sort on the same radix keys (the low `bits` bits, the sign bit flipped as cub does for
// signed keys), so the emulated sort orders pairs as the device's does.
#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/randperm_body.cuh"
#include "ember/error.h"

namespace ember::cuda::kernels {
namespace {

template <class K>
void stable_radix_sort(const RandpermSort& s) {
  using U = std::make_unsigned_t<K>;
  constexpr int kWidth = int(sizeof(K) * 8);
  const U mask = s.bits >= kWidth ? ~U(0) : U((U(1) << s.bits) - 1);
  const auto radix = [&](K key) { return U(U(key) ^ (U(1) << (kWidth - 1))) & mask; };
  const K* keys = static_cast<const K*>(s.keys_in);
  std::vector<int64_t> order(size_t(s.n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return radix(keys[a]) < radix(keys[b]); });
  K* keys_out = static_cast<K*>(s.keys_out);
  for (int64_t i = 0; i < s.n; ++i) {
    keys_out[i] = keys[order[size_t(i)]];
    s.values_out[i] = s.values_in[order[size_t(i)]];
  }
}

}  // namespace

void emulate_randperm(const RandpermLaunch& l) { emulate_launch(l, "randperm"); }

void emulate_randperm_sort(const RandpermSort& s) {
  EMBER_CHECK((s.key_bytes == 4 || s.key_bytes == 8) && s.bits >= 1 && s.bits <= s.key_bytes * 8 &&
                  s.n >= 0,
              "cuda emulation", "a randperm sort of ", s.n, " pairs on ", s.bits, " bits of ",
              s.key_bytes, "-byte keys, expected 1 to ", s.key_bytes * 8, " bits of 4 or 8 bytes");
  if (s.key_bytes == 4)
    stable_radix_sort<int32_t>(s);
  else
    stable_radix_sort<int64_t>(s);
}

}  // namespace ember::cuda::kernels
