// The rearranging kernels' work (rearrange_launch.h), for the device (rearrange.cu) and the CPU
// emulation (rearrange_emulation.cpp) alike: the moving kernels (flip, tril/triu) by element
// size, trace and the int64 statistics as one block's b.reduce (Note [Block programs] in
// block.cuh), one_hot, repeat_interleave, searchsorted and unique's passes a thread per output.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/rearrange_launch.h"
#include "backend/cuda/sort_body.cuh"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

/// flip: U the unsigned integer of the element size.
template <class U>
struct FlipBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const FlipLaunch& l) {
    each_strided<2>(b, l, [&](char* const* at) {
      *reinterpret_cast<U*>(at[0]) = *reinterpret_cast<const U*>(at[1]);
    });
  }
};

/// tril/triu: U the unsigned integer of the element size.
template <class U>
struct TriangleBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const TriangleLaunch& l) {
    grid_stride(b, l.numel, [&](int64_t e) {
      const int64_t j = e % l.cols, i = e / l.cols % l.rows;
      const bool keep = l.lower ? j - i <= l.k : j - i >= l.k;
      reinterpret_cast<U*>(l.dst)[e] = keep ? reinterpret_cast<const U*>(l.src)[e] : U(0);
    });
  }
};

/// trace: the CPU kernel's accumulator of S (PyTorch's CPU trace: double for float, float for
/// the half types, int64 for the integers).
template <class S>
using trace_acc_t = std::conditional_t<std::is_integral_v<S>, int64_t,
                                       std::conditional_t<is_half_v<S>, float, double>>;

template <class S>
struct TraceBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const TraceLaunch& l) {
    using Acc = trace_acc_t<S>;
    const S* self = reinterpret_cast<const S*>(l.self);
    const Acc sum = b.reduce(
        [&](uint32_t t) {
          Acc a = Acc(0);
          for (int64_t i = t; i < l.n; i += b.threads()) a += Acc(self[i * l.step]);
          return a;
        },
        Sum<Acc>{});
    b.leader([&] {
      if constexpr (std::is_integral_v<S>)
        *reinterpret_cast<int64_t*>(l.out) = sum;
      else
        *reinterpret_cast<S*>(l.out) = S(sum);
    });
  }
};

/// The int64 combiners of IntStatsBody (block_reduce.cuh's Min and Max start from infinities).
struct IntMin {
  EMBER_HOST_DEVICE int64_t identity() const { return INT64_MAX; }
  EMBER_HOST_DEVICE int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};
struct IntMax {
  EMBER_HOST_DEVICE int64_t identity() const { return INT64_MIN; }
  EMBER_HOST_DEVICE int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};

struct IntStatsBody {
  template <class Block, class Combine>
  EMBER_HOST_DEVICE static int64_t fold(const Block& b, const IntStatsLaunch& l, Combine c) {
    return b.reduce(
        [&](uint32_t t) {
          int64_t a = c.identity();
          for (int64_t i = t; i < l.n; i += b.threads()) a = c(a, l.x[i]);
          return a;
        },
        c);
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const IntStatsLaunch& l) {
    const int64_t lo = fold(b, l, IntMin{}), hi = fold(b, l, IntMax{});
    const int64_t sum = fold(b, l, Sum<int64_t>{});
    b.leader([&] {
      l.stats[0] = lo;
      l.stats[1] = hi;
      l.stats[2] = sum;
    });
  }
};

struct OneHotBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const OneHotLaunch& l) {
    grid_stride(b, l.n, [&](int64_t i) { l.out[i * l.classes + l.x[i]] = 1; });
  }
};

struct RepeatBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RepeatLaunch& l) {
    grid_stride(b, l.total, [&](int64_t j) {
      l.out[j] = first_where(l.n, [&](int64_t i) { return l.ends[i] > j; });
    });
  }
};

template <class S>
struct SearchsortedBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const SearchsortedLaunch& l) {
    using C = opmath_t<S>;
    const S* bd = reinterpret_cast<const S*>(l.boundaries);
    const S* v = reinterpret_cast<const S*>(l.values);
    grid_stride(b, l.n, [&](int64_t i) {
      const int64_t row = l.per_row ? (i / l.per_row) * l.m : 0;
      const C x = C(v[i]);
      // The CPU's comparisons (its search moves right on their negation), so NaN boundaries and
      // values land where PyTorch puts them.
      l.out[i] = first_where(l.m, [&](int64_t mid) {
        const C y = C(bd[row + (l.sorter ? l.sorter[row + mid] : mid)]);
        return l.right ? y > x : y >= x;
      });
    });
  }
};

template <class S>
struct UniqueBody {
  using C = opmath_t<S>;

  /// -1, 0 or 1 as row a of x is before, tied with or after row b: the CPU's group_rows compare
  /// (by <, column by column). A NaN ties with every value there, which is no strict weak order:
  /// rows holding NaNs may come out in another order (and groups) than the CPU's merge sort
  /// gives, as PyTorch's CUDA and CPU unique(dim) differ; rows without NaNs sort the same.
  EMBER_HOST_DEVICE static int compare_rows(const UniqueLaunch& l, int64_t a, int64_t b) {
    const S* x = reinterpret_cast<const S*>(l.self);
    for (int64_t c = 0; c < l.row; ++c) {
      const C p = C(x[a * l.row + c]), q = C(x[b * l.row + c]);
      if (p < q) return -1;
      if (q < p) return 1;
    }
    return 0;
  }

  /// Whether sorted position k starts a group.
  EMBER_HOST_DEVICE static bool starts_group(const UniqueLaunch& l, int64_t k) {
    if (k == 0) return true;
    if (l.rows) return compare_rows(l, l.order[k - 1], l.order[k]) != 0;
    const S* sorted = reinterpret_cast<const S*>(l.sorted);
    return !(C(sorted[k]) == C(sorted[k - 1]));  // the CPU's test: a NaN never joins a group
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const UniqueLaunch& l) {
    switch (l.phase) {
      case UniqueLaunch::sort_rows:
        b.phase([&](uint32_t t) {
          for (int64_t i = t; i < l.n; i += b.threads()) l.order[i] = i;
        });
        bitonic_network(b, l.n, [&](int64_t i, int64_t p) {
          const int64_t a = l.order[i], c = l.order[p];
          const int cmp = compare_rows(l, c, a);
          if (cmp < 0 || (cmp == 0 && c < a)) {
            l.order[i] = c;
            l.order[p] = a;
          }
        });
        return;
      case UniqueLaunch::mark:
        grid_stride(b, l.n, [&](int64_t k) { l.starts[k] = starts_group(l, k) ? 1 : 0; });
        return;
      case UniqueLaunch::write:
        grid_stride(b, l.n, [&](int64_t k) {
          const int64_t g = l.ids[k] - 1;
          if (l.inverse) l.inverse[l.order[k]] = g;
          if (!l.starts[k]) return;
          l.firsts[g] = k;
          if (l.rows)
            l.first[g] = l.order[k];
          else
            reinterpret_cast<S*>(l.values)[g] = reinterpret_cast<const S*>(l.self)[l.order[k]];
        });
        return;
      case UniqueLaunch::count:
        grid_stride(b, l.groups, [&](int64_t g) {
          l.counts[g] = (g + 1 < l.groups ? l.firsts[g + 1] : l.n) - l.firsts[g];
        });
        return;
    }
  }
};

/// The bodies of each launch (launch.cuh).
template <class F>
bool with_body(const FlipLaunch& l, F&& f) {
  return with_item_bits(l.itemsize,
                        [&](auto u) { f(Tag<FlipBody<typename decltype(u)::type>>{}); });
}
template <class F>
bool with_body(const TriangleLaunch& l, F&& f) {
  return with_item_bits(l.itemsize,
                        [&](auto u) { f(Tag<TriangleBody<typename decltype(u)::type>>{}); });
}
template <class F>
bool with_body(const TraceLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t>(
      l.type, [&](auto s) { f(Tag<TraceBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const IntStatsLaunch&, F&& f) {
  f(Tag<IntStatsBody>{});
  return true;
}
template <class F>
bool with_body(const OneHotLaunch&, F&& f) {
  f(Tag<OneHotBody>{});
  return true;
}
template <class F>
bool with_body(const RepeatLaunch&, F&& f) {
  f(Tag<RepeatBody>{});
  return true;
}
template <class F>
bool with_body(const SearchsortedLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t>(
      l.type, [&](auto s) { f(Tag<SearchsortedBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const UniqueLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t, bool>(
      l.type, [&](auto s) { f(Tag<UniqueBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
