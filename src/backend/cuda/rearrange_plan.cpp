// See rearrange_plan.h.
#include "backend/cuda/rearrange_plan.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cpu/loop.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/reduce_plan.h"
#include "backend/cuda/scan_plan.h"
#include "backend/cuda/sort_plan.h"

namespace ember::cuda {
namespace {

/// The threads of the one-block launches (trace, the int64 statistics).
constexpr uint32_t kBlockThreads = 256;

/// The element size of a kernel that moves elements as words: `[op] ...` for one it has none for.
int32_t word_size(const Tensor& t, const char* op) {
  const int64_t e = t.element_size();
  EMBER_CHECK(e == 1 || e == 2 || e == 4 || e == 8, op, "the cuda kernel moves elements of 1, 2, ",
              "4 or 8 bytes, got ", dtype_name(t.dtype()), " of ", e);
  return int32_t(e);
}

/// The storage type of a numeric (non-bool) operand: `[op] ...` for bool, uint8, int8, int16.
kernels::Type numeric_type(const Tensor& t, const char* op) {
  EMBER_CHECK(t.dtype() != kBool, op, "the cuda backend has no bool kernel (", op,
              " takes numbers)");
  return storage_type(t.dtype(), op);
}

kernels::IntStatsLaunch stats_launch(const Tensor& x, const Tensor& stats) {
  return {.n = x.numel(),
          .x = x.data_ptr<int64_t>(),
          .stats = stats.data_ptr<int64_t>(),
          .blocks = 1,
          .threads = kBlockThreads};
}

}  // namespace

kernels::FlipLaunch plan_flip_launch(const Tensor& out, const Tensor& self, IntArrayRef dims) {
  const char* op = "flip";
  EMBER_CHECK(out.sizes() == self.sizes() && out.dtype() == self.dtype() && out.is_contiguous() &&
                  self.numel() > 0,
              op, "expected a contiguous output of self's shape and dtype, got ", out.sizes(), " ",
              out.dtype(), " for ", self.sizes(), " ", self.dtype());
  kernels::FlipLaunch l{};
  l.itemsize = word_size(self, op);
  // Read self through strides negated on the flipped dims, from their last element (the CPU's
  // flip walks the same layout).
  char* src = static_cast<char*>(self.data_ptr());
  DimVector ss = cpu::byte_strides(self.strides(), l.itemsize);
  for (const int64_t d : dims) {
    EMBER_CHECK(d >= 0 && d < self.dim(), op, "expected wrapped dims of a ", self.dim(),
                "-d tensor, got ", dims);
    src += (self.size(d) - 1) * ss[size_t(d)];
    ss[size_t(d)] = -ss[size_t(d)];
  }
  const DimVector os = cpu::byte_strides(out.strides(), l.itemsize);
  static_cast<kernels::Strided&>(l) =
      plan_strided<2>(op, self.sizes(), {static_cast<char*>(out.data_ptr()), src},
                      {IntArrayRef(os), IntArrayRef(ss)});
  return l;
}

kernels::TriangleLaunch plan_triangle_launch(const Tensor& out, const Tensor& self, int64_t k,
                                             bool lower) {
  const char* op = lower ? "tril" : "triu";
  EMBER_CHECK(self.dim() >= 2 && out.sizes() == self.sizes() && out.dtype() == self.dtype() &&
                  self.is_contiguous() && out.is_contiguous(),
              op, "expected contiguous self and out of one shape and dtype, at least 2-D, got ",
              self.sizes(), " and ", out.sizes());
  kernels::TriangleLaunch l{};
  l.itemsize = word_size(self, op);
  l.lower = lower;
  l.k = k;
  l.rows = self.size(-2);
  l.cols = self.size(-1);
  l.numel = self.numel();
  l.src = static_cast<const char*>(self.data_ptr());
  l.dst = static_cast<char*>(out.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.numel);
  return l;
}

kernels::TraceLaunch plan_trace_launch(const Tensor& out, const Tensor& self) {
  const char* op = "trace";
  const Dtype want = is_integral(self.dtype(), /*include_bool=*/true) ? kInt64 : self.dtype();
  EMBER_CHECK(self.dim() == 2 && out.dim() == 0 && out.dtype() == want, op,
              "expected a matrix and a 0-d ", want, " out, got ", self.sizes(), " and ",
              out.sizes(), " ", out.dtype());
  kernels::TraceLaunch l{};
  l.type = numeric_type(self, op);
  l.n = std::min(self.size(0), self.size(1));
  l.step = self.stride(0) + self.stride(1);
  l.self = static_cast<const char*>(self.data_ptr());
  l.out = static_cast<char*>(out.data_ptr());
  l.blocks = 1;
  l.threads = kBlockThreads;
  return l;
}

kernels::SearchsortedLaunch plan_searchsorted_launch(const Tensor& out, const Tensor& boundaries,
                                                     const Tensor& values, const Tensor& sorter,
                                                     bool right) {
  const char* op = "searchsorted";
  EMBER_CHECK(boundaries.dim() >= 1 && boundaries.is_contiguous() && values.is_contiguous() &&
                  boundaries.dtype() == values.dtype() && out.is_contiguous() &&
                  out.dtype() == kInt64 && out.sizes() == values.sizes() &&
                  (!sorter.defined() || (sorter.is_contiguous() && sorter.dtype() == kInt64 &&
                                         sorter.sizes() == boundaries.sizes())),
              op, "expected contiguous boundaries and values of one dtype, an int64 out of the ",
              "values' shape and an int64 sorter of the boundaries' shape, got ",
              boundaries.sizes(), " ", boundaries.dtype(), ", ", values.sizes(), " ",
              values.dtype(), " and ", out.sizes(), " ", out.dtype());
  kernels::SearchsortedLaunch l{};
  l.type = numeric_type(values, op);
  l.right = right;
  l.n = values.numel();
  l.m = boundaries.size(-1);
  l.per_row = boundaries.dim() == 1 ? 0 : values.size(-1);
  l.boundaries = static_cast<const char*>(boundaries.data_ptr());
  l.values = static_cast<const char*>(values.data_ptr());
  l.sorter = data_or_null<int64_t>(sorter);
  l.out = out.data_ptr<int64_t>();
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.n);
  return l;
}

std::array<int64_t, 3> read_int_stats(const Tensor& stats) {
  const Tensor host = stats.cpu();
  const int64_t* v = host.data_ptr<int64_t>();
  return {v[0], v[1], v[2]};
}

OneHotWork plan_one_hot(const Tensor& self) {
  const char* op = "one_hot";
  EMBER_CHECK(self.dtype() == kInt64 && self.is_contiguous() && self.numel() > 0, op,
              "expected a contiguous int64 tensor with elements, got ", self.sizes(), " ",
              self.dtype());
  OneHotWork w{};
  w.stats = backend::new_buffer({3}, kInt64, self.device(), op);
  w.stats_launch = stats_launch(self, w.stats);
  w.write = {.n = self.numel(),
             .classes = 0,
             .x = self.data_ptr<int64_t>(),
             .out = nullptr,
             .blocks = grid_blocks(self.numel()),
             .threads = kElementwiseThreads};
  return w;
}

Tensor one_hot_result(OneHotWork& w, const Tensor& self, const std::array<int64_t, 3>& stats,
                      int64_t num_classes) {
  const char* op = "one_hot";
  EMBER_CHECK(stats[0] >= 0, op, "Class values must be non-negative.");
  if (num_classes == -1) num_classes = stats[1] + 1;
  EMBER_CHECK(stats[1] < num_classes, op, "Class values must be smaller than num_classes.");
  DimVector shape(self.sizes());
  shape.push_back(num_classes);
  Tensor out = backend::new_zeros(shape, kInt64, self.device());
  w.write.classes = num_classes;
  w.write.out = out.data_ptr<int64_t>();
  return out;
}

RepeatWork plan_repeat_interleave(const Tensor& repeats) {
  const char* op = "repeat_interleave";
  EMBER_CHECK(repeats.dim() == 1 && repeats.dtype() == kInt64 && repeats.is_contiguous() &&
                  repeats.numel() > 0,
              op, "expected contiguous int64 repeats (n), n >= 1, got ", repeats.sizes(), " ",
              repeats.dtype());
  RepeatWork w{};
  w.stats = backend::new_buffer({3}, kInt64, repeats.device(), op);
  w.ends = backend::new_buffer({repeats.numel()}, kInt64, repeats.device(), op);
  w.stats_launch = stats_launch(repeats, w.stats);
  w.scan = plan_scan_launch(op, w.ends, repeats, 0, /*prod=*/false);
  w.write = {.n = repeats.numel(),
             .total = 0,
             .ends = w.ends.data_ptr<int64_t>(),
             .out = nullptr,
             .blocks = 1,
             .threads = kElementwiseThreads};
  return w;
}

Tensor repeat_interleave_result(RepeatWork& w, const Tensor& repeats,
                                const std::array<int64_t, 3>& stats) {
  const char* op = "repeat_interleave";
  EMBER_CHECK(stats[0] >= 0, op, "repeats can not be negative");
  Tensor out = backend::new_buffer({stats[2]}, kInt64, repeats.device(), op);
  w.write.total = stats[2];
  w.write.out = out.data_ptr<int64_t>();
  w.write.blocks = grid_blocks(stats[2]);
  return out;
}

namespace {

/// The buffers and launches of a unique over n elements or rows of `self` (type: its storage
/// type; order: the sorted positions' elements or rows, n int64), all but the sort.
UniqueWork plan_unique_groups(const Tensor& self, int64_t n, kernels::Type type, bool rows,
                              const Tensor& order) {
  const char* op = "unique";
  UniqueWork w{};
  w.order = order;
  w.starts = backend::new_buffer({n}, kInt64, self.device(), op);
  w.ids = backend::new_buffer({n}, kInt64, self.device(), op);
  kernels::UniqueLaunch& m = w.mark;
  m.phase = kernels::UniqueLaunch::mark;
  m.type = type;
  m.rows = rows;
  m.n = n;
  m.row = rows ? self.numel() / n : 1;
  m.self = static_cast<const char*>(self.data_ptr());
  m.order = w.order.data_ptr<int64_t>();
  m.starts = w.starts.data_ptr<int64_t>();
  m.ids = w.ids.data_ptr<int64_t>();
  m.threads = kElementwiseThreads;
  m.blocks = grid_blocks(n);
  w.scan = plan_scan_launch(op, w.ids, w.starts, 0, /*prod=*/false);
  w.write = m;
  w.write.phase = kernels::UniqueLaunch::write;
  w.count = m;
  w.count.phase = kernels::UniqueLaunch::count;
  return w;
}

/// Points the write and count launches at the firsts (made here), inverse and counts.
void set_group_outputs(UniqueWork& w, const Tensor& self, int64_t groups, const Tensor& inverse,
                       const Tensor& counts) {
  EMBER_CHECK(groups >= 1 && groups <= w.mark.n, "unique", "a count of ", groups, " groups among ",
              w.mark.n, " elements");
  w.firsts = backend::new_buffer({groups}, kInt64, self.device(), "unique");
  for (kernels::UniqueLaunch* l : {&w.write, &w.count}) {
    l->groups = groups;
    l->inverse = cuda::data_or_null<int64_t>(inverse);  // optim_plan.cpp has one in its unity chunk
    l->firsts = w.firsts.data_ptr<int64_t>();
    l->counts = cuda::data_or_null<int64_t>(counts);
  }
  w.count.blocks = grid_blocks(groups);
}

}  // namespace

UniqueWork plan_unique(const Tensor& self) {
  const char* op = "unique";
  const int64_t n = self.numel();
  EMBER_CHECK(self.is_contiguous() && n > 0, op, "expected a contiguous tensor with elements, got ",
              self.sizes());
  const Tensor sorted = backend::new_buffer({n}, self.dtype(), self.device(), op);
  const Tensor order = backend::new_buffer({n}, kInt64, self.device(), op);
  const kernels::SortLaunch sort = plan_sort_launch(sorted, order, self.view({n}), 0, false);
  UniqueWork w = plan_unique_groups(self, n, sort.type, /*rows=*/false, order);
  w.sorted = sorted;
  w.sort = sort;
  for (kernels::UniqueLaunch* l : {&w.mark, &w.write, &w.count})
    l->sorted = static_cast<const char*>(sorted.data_ptr());
  return w;
}

UniqueWork plan_unique_rows(const Tensor& x) {
  const char* op = "unique";
  EMBER_CHECK(x.dim() >= 1 && x.is_contiguous() && x.size(0) > 0, op,
              "expected contiguous rows x (n, ...), n >= 1, got ", x.sizes());
  const int64_t n = x.size(0);
  UniqueWork w = plan_unique_groups(x, n, storage_type(x.dtype(), op), /*rows=*/true,
                                    backend::new_buffer({n}, kInt64, x.device(), op));
  w.sort_rows = w.mark;
  w.sort_rows.phase = kernels::UniqueLaunch::sort_rows;
  w.sort_rows.blocks = 1;  // one block's network
  w.sort_rows.threads = block_threads((n + 1) / 2, kSortThreads);
  return w;
}

backend::UniqueElements unique_result(UniqueWork& w, const Tensor& self, int64_t groups,
                                      bool return_inverse, bool return_counts) {
  const char* op = "unique";
  backend::UniqueElements r;
  r.values = backend::new_buffer({groups}, self.dtype(), self.device(), op);
  if (return_inverse) r.inverse = backend::new_buffer(self.sizes(), kInt64, self.device(), op);
  if (return_counts) r.counts = backend::new_buffer({groups}, kInt64, self.device(), op);
  set_group_outputs(w, self, groups, r.inverse, r.counts);
  w.write.values = static_cast<char*>(r.values.data_ptr());
  return r;
}

backend::UniqueRows unique_rows_result(UniqueWork& w, const Tensor& x, int64_t groups) {
  const char* op = "unique";
  backend::UniqueRows r;
  r.first = backend::new_buffer({groups}, kInt64, x.device(), op);
  r.inverse = backend::new_buffer({x.size(0)}, kInt64, x.device(), op);
  r.counts = backend::new_buffer({groups}, kInt64, x.device(), op);
  set_group_outputs(w, x, groups, r.inverse, r.counts);
  w.write.first = r.first.data_ptr<int64_t>();
  return r;
}

}  // namespace ember::cuda
