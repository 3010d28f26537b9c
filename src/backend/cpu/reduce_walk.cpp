// The reduction engine's walk (Note [One reduction walk] in backend/cpu/reduce_engine.h): which
// layout, the outputs in parallel, the pairwise tree over row blocks, and a tree's split into
// subtrees for the threads, compiled once for every dtype and reducer.
#include <cstring>
#include <memory>
#include <vector>

#include "backend/cpu/reduce_engine.h"

namespace EMBER_CPU_NS {
namespace {

/// Room for one accumulator of any reducer.
struct alignas(16) AccSlot {
  unsigned char bytes[kMaxAccBytes];
};

void tree_nodes(int64_t begin, int64_t n, int depth, int64_t leaf, int64_t align,
                std::vector<int64_t>& out) {
  if (depth == 0 || n <= leaf) {
    out.push_back(begin);
    out.push_back(n);
    return;
  }
  const int64_t half = split_point(n, align);
  tree_nodes(begin, half, depth - 1, leaf, align, out);
  tree_nodes(begin + half, n - half, depth - 1, leaf, align, out);
}

// Combines the nodes' values (at `depth`) in tree order into *acc.
void tree_combine(const ReduceJob& j, const ReduceFns& fns, int64_t n, int depth, int64_t leaf,
                  int64_t align, const AccSlot* values, size_t& next, void* acc) {
  if (depth == 0 || n <= leaf) {
    std::memcpy(acc, values[next++].bytes, fns.acc_size);
    return;
  }
  const int64_t half = split_point(n, align);
  tree_combine(j, fns, half, depth - 1, leaf, align, values, next, acc);
  AccSlot right;
  tree_combine(j, fns, n - half, depth - 1, leaf, align, values, next, right.bytes);
  fns.combine(j, acc, right.bytes);
}

/// subtree(0, n) on all threads, bit-identical to it (Note [Deterministic parallel sums]):
/// subtree(begin, count, acc) reduces a node of the tree (leaves of `leaf` items split at
/// split_point(.., align)). `cost` is the work per item (elements read), which sets how deep the
/// tree is cut.
template <class Subtree>
void tree_parallel(const ReduceJob& j, const ReduceFns& fns, int64_t n, int64_t leaf, int64_t align,
                   int64_t cost, const Subtree& subtree, void* acc) {
  int depth = 0;
  while (depth < 6 && (n >> depth) > leaf && (n >> depth) * cost >= 2 * kGrainSize) ++depth;
  if (depth == 0 || get_num_threads() == 1) return subtree(0, n, acc);
  std::vector<int64_t> nodes;
  tree_nodes(0, n, depth, leaf, align, nodes);
  const int64_t count = int64_t(nodes.size() / 2);
  const auto values = std::make_unique<AccSlot[]>(size_t(count));
  parallel_for(0, count, 1, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) subtree(nodes[2 * i], nodes[2 * i + 1], values[i].bytes);
  });
  size_t next = 0;
  tree_combine(j, fns, n, depth, leaf, align, values.get(), next, acc);
}

/// Column reduction: out[c] = finish(combine over k < K of x[k * row_stride + c]) for c < J
/// (row_stride in elements). Blocks of 128 rows are accumulated row by row and the blocks
/// combined pairwise (the tree of Note [Deterministic parallel sums] over rows), so the error
/// grows with log K.
void walk_rows(const ReduceJob& j, const ReduceFns& fns, int64_t K, int64_t J, int64_t row_stride) {
  if (fns.rows) {
    fns.rows(j, j.base, K, J, row_stride);
    return;
  }
  constexpr int64_t kBlock = 128;
  int levels = 1;
  for (int64_t k = K; k > kBlock; k = k - k / 2) ++levels;
  const size_t acc = fns.acc_size;
  const int64_t stride = row_stride * j.itemsize;
  // Threads take disjoint column ranges (at least 64 columns each) so no merging is needed; a
  // column's result does not depend on which range it falls in.
  const int64_t grain = std::max<int64_t>(64, kGrainSize / std::max<int64_t>(K, 1));
  parallel_for(0, J, grain, [&](int64_t j0, int64_t j1) {
    // Column tiles of 1024 keep a tile's buffers (levels x 4 KiB of float) in L1/L2.
    constexpr int64_t kTile = 1024;
    const size_t level_bytes = size_t(kTile) * acc;
    // new[]'s alignment (16) suits every accumulator.
    const auto buf = std::make_unique_for_overwrite<unsigned char[]>(size_t(levels) * level_bytes);
    unsigned char* const bytes = buf.get();
    for (int64_t t0 = j0; t0 < j1; t0 += kTile) {
      const int64_t w = std::min(kTile, j1 - t0);
      const char* const x = j.base + t0 * j.itemsize;
      // Level l holds the partial result of a node at depth l.
      auto node = [&](auto&& self, int64_t k0, int64_t n, int level) -> void {
        unsigned char* dst = bytes + size_t(level) * level_bytes;
        if (n <= kBlock) {
          fns.row_block(j, dst, x + k0 * stride, n, stride, w);
          return;
        }
        const int64_t half = split_point(n, 1);
        self(self, k0, half, level + 1);
        std::memcpy(dst, dst + level_bytes, size_t(w) * acc);
        self(self, k0 + half, n - half, level + 1);
        fns.row_combine(j, dst, dst + level_bytes, w);
      };
      node(node, 0, K, 0);
      fns.row_store(j, bytes, t0, w);
    }
  });
}

}  // namespace

void walk_reduction(const ReduceFns& fns, void* out, const Layout& l, const void* reducer) {
  const Tensor& x = l.x;
  const int64_t M = prod(IntArrayRef(x.sizes().data(), size_t(l.nkept)));
  const ReduceJob j{&l, static_cast<const char*>(x.data_ptr()), int64_t(x.element_size()), out,
                    reducer};
  // Rows layout: nothing contiguous reduced, kept dims contiguous and innermost.
  if (l.run == 1 && l.nouter > 0 && l.nkept > 0 && x.strides()[l.nkept - 1] == 1 && M > 1) {
    // Kept dims must form one contiguous row; reduced dims must collapse to one stride.
    const auto kept = collapse(x.sizes().data(), x.strides().data(), l.nkept);
    const auto red = collapse(x.sizes().data() + l.nkept, x.strides().data() + l.nkept, l.nouter);
    if (kept && *kept == 1 && red) {
      int64_t K = 1;
      for (int64_t d = l.nkept; d < l.nkept + l.nouter; ++d) K *= x.sizes()[d];
      walk_rows(j, fns, K, M, *red);
      return;
    }
  }
  if (l.run == 1 && l.nouter > 0) {
    // Neither layout fits: reduce a contiguous copy, where the whole reduction is one run.
    Layout c{x.contiguous(), l.nkept, 1, 0};
    for (int64_t d = l.nkept; d < x.dim(); ++d) c.run *= x.sizes()[d];
    walk_reduction(fns, out, c, reducer);
    return;
  }
  // Runs layout. Each output combines its `outer` runs pairwise (Note [Deterministic parallel
  // sums] in backend/cpu/reduce.h), so the result is the same whichever thread computes it.
  const int64_t L = l.run;
  int64_t outer = 1;
  for (int64_t d = l.nkept; d < l.nkept + l.nouter; ++d) outer *= x.sizes()[d];
  auto output = [&](int64_t m) { return j.base + offset_of(x, m, 0, l.nkept) * j.itemsize; };
  // Runs of a few elements are grouped into leaves of about 64 elements (one call each).
  const int64_t leaf = std::max<int64_t>(1, 64 / std::max<int64_t>(L, 1));
  const int threads = get_num_threads();
  if (M >= threads || M * outer * L < kGrainSize) {
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, outer * L));
    if (outer == 1) {
      parallel_for(0, M, grain, [&](int64_t m0, int64_t m1) { fns.outputs(j, m0, m1); });
      return;
    }
    parallel_for(0, M, grain, [&](int64_t m0, int64_t m1) {
      for (int64_t m = m0; m < m1; ++m) {
        AccSlot acc;
        fns.runs(j, output(m), 0, outer, leaf, acc.bytes);
        fns.store(j, m, acc.bytes);
      }
    });
    return;
  }
  // Few outputs, much work: each output's tree is cut into subtrees for the threads.
  for (int64_t m = 0; m < M; ++m) {
    const char* p = output(m);
    AccSlot acc;
    if (outer == 1) {
      // reduce_run's tree over leaves of kRunLeaf elements.
      auto elements = [&](int64_t b, int64_t c, void* a) { fns.elements(j, p, b, c, a); };
      tree_parallel(j, fns, L, kRunLeaf, 64, 1, elements, acc.bytes);
    } else {
      auto runs = [&](int64_t o0, int64_t c, void* a) { fns.runs(j, p, o0, c, leaf, a); };
      tree_parallel(j, fns, outer, leaf, 1, L, runs, acc.bytes);
    }
    fns.store(j, m, acc.bytes);
  }
}

}  // namespace EMBER_CPU_NS
