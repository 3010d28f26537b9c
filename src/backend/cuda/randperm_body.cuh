// The CUDA randperm's kernel bodies (randperm_launch.h, Note [CUDA randperm]), for the device
// (randperm.cu) and the CPU emulation (randperm_emulation.cpp) alike. Each thread's work touches
// only its own elements (an island belongs to its first thread), so a grid of threads run one by
// one computes what the device does.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/philox.cuh"
#include "backend/cuda/randperm_launch.h"

namespace ember::cuda::kernels {

/// perm[i] = i in a grid-stride loop.
struct IotaBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RandpermLaunch& l) {
    grid_stride(b, l.n, [&](int64_t i) { l.perm[i] = i; });
  }
};

/// curand(): a Philox stream's words one at a time (x, y, z, w of each block in turn).
class PhiloxWords {
 public:
  EMBER_HOST_DEVICE PhiloxWords(uint64_t seed, uint64_t subsequence, uint64_t offset)
      : rng_(seed, subsequence, offset) {}
  EMBER_HOST_DEVICE uint32_t next() {
    if (lane_ == 4) {
      block_ = rng_.next4();
      lane_ = 0;
    }
    const uint32_t w = lane_ == 0   ? block_.x
                       : lane_ == 1 ? block_.y
                       : lane_ == 2 ? block_.z
                                    : block_.w;
    ++lane_;
    return w;
  }

 private:
  Philox rng_;
  Words4 block_{};
  int lane_ = 4;
};

/// PyTorch's randperm_handle_duplicate_keys_kernel: thread tid leads the island starting at tid
/// (its masked key equals the next one's and differs from the previous one's), measures it and
/// shuffles perm over it from the back.
template <class K>
struct IslandsBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RandpermLaunch& l) {
    const K* keys = static_cast<const K*>(l.keys);
    const K mask = K(l.mask);
    b.each_thread([&](uint32_t t) {
      const int64_t tid = int64_t(b.x()) * b.threads() + t;
      if (tid >= l.n - 1) return;
      const K key = keys[tid] & mask;
      if (key != (keys[tid + 1] & mask)) return;              // not in an island
      if (tid != 0 && key == (keys[tid - 1] & mask)) return;  // not its first element
      int64_t size = 0;
      do {
        ++size;
      } while (tid + size < l.n && (keys[tid + size] & mask) == key);
      int64_t* data = l.perm + tid;
      PhiloxWords rng(l.seed, uint64_t(tid), l.offset);
      for (int64_t i = size - 1; i > 0; --i) {
        const int64_t r = int64_t(rng.next() % uint32_t(i + 1));
        if (r != i) {
          const int64_t tmp = data[i];
          data[i] = data[r];
          data[r] = tmp;
        }
      }
    });
  }
};

/// The body of l (launch.cuh).
template <class F>
bool with_body(const RandpermLaunch& l, F&& f) {
  if (l.phase == RandpermLaunch::Phase::iota) {
    f(Tag<IotaBody>{});
    return true;
  }
  if (l.key_bytes == 4) {
    f(Tag<IslandsBody<int32_t>>{});
    return true;
  }
  if (l.key_bytes == 8) {
    f(Tag<IslandsBody<int64_t>>{});
    return true;
  }
  return false;
}

}  // namespace ember::cuda::kernels
