// The embedding_renorm kernel's work (renorm_launch.h), for the device (renorm.cu) and the CPU
// emulation (renorm_emulation.cpp) alike. The row norm is the reductions' (reduce_body.cuh's
// with_norm and finish_norm), over the block's threads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/reduce_body.cuh"
#include "backend/cuda/renorm_launch.h"

namespace ember::cuda::kernels {

/// S the storage type, R the norm's reduction (reduce_body.cuh's with_norm).
template <class S, class R>
struct RenormBody {
  using C = opmath_t<S>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RenormLaunch& l) {
    if (l.pass == RenormLaunch::own) {
      grid_stride(b, l.n, [&](int64_t j) {
        const int64_t r = l.indices[j];
        if (r < 0 || r >= l.num)
          record_bad_index(l.bad, r);
        else
          l.owner[r] = j;
      });
      return;
    }
    R norm{};
    if constexpr (std::is_same_v<decltype(R::load), LoadAbsPow>) norm.load.p = l.norm_type;
    for (int64_t j = b.x(); j < l.n; j += b.blocks_x()) {
      const int64_t r = l.indices[j];
      if (r < 0 || r >= l.num || l.owner[r] != j) continue;  // the same for every thread
      S* row = reinterpret_cast<S*>(l.weight) + r * l.D;
      const C acc = b.reduce(
          [&](uint32_t t) {
            C a = norm.identity();
            for (int64_t d = t; d < l.D; d += b.threads()) a = norm(a, norm.load(C(row[d]), 0));
            return a;
          },
          norm);
      // The CPU kernel's norm is a tensor of the row's dtype, compared and divided in double.
      const double total = double(C(S(b.broadcast(finish_norm(acc, l.norm_type)))));
      if (!(total > l.max_norm)) continue;
      const C scale = C(l.max_norm / (total + 1e-7));
      // Every thread has read its elements for the norm before any writes (the broadcast is a
      // barrier), and each writes only its own.
      b.each_thread([&](uint32_t t) {
        for (int64_t d = t; d < l.D; d += b.threads()) row[d] = S(C(row[d]) * scale);
      });
    }
  }
};

/// The bodies of a launch (launch.cuh): the four floating types, each with the norm_type's
/// reduction.
template <class F>
bool with_body(const RenormLaunch& l, F&& f) {
  return with_floating_type(l.type, [&](auto s) {
    using S = typename decltype(s)::type;
    with_norm<opmath_t<S>>(l.norm_type, [&](auto r) { f(Tag<RenormBody<S, decltype(r)>>{}); });
  });
}

}  // namespace ember::cuda::kernels
