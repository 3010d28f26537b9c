// Indexing ops as free functions (PyTorch's torch.* spellings): gathering and scattering along a
// dim, masks, rearranging (flip, roll, triangles, diagonals), searching, and sorting/selection.
// Index tensors are int64 unless noted; results are new tensors unless a name ends in '_'.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ── gather / scatter (src/ops/gather.cpp) ───────────────────────────────
/// Entries of t at `index` (1-D, int64 or int32) along dim.
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
/// out[i][j] = t[i][index[i][j]] for dim 1 (and likewise for any dim).
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
/// A copy of t with t[i][index[i][j]] = src[i][j] for dim 1.
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& t, int64_t dim, const Tensor& index, Scalar value);
/// Like scatter, but adds; repeated indices sum up.
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
/// reduce: "sum", "prod", "mean", "amax" or "amin"; include_self=false leaves t's values out of
/// the reduction at the positions written to.
Tensor scatter_reduce(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& t, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true);
/// t with t.select(dim, index[i]) += alpha * source.select(dim, i); repeated indices sum up.
Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha = 1);
Tensor index_copy(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source);
/// Negative indices count from the end.
Tensor index_fill(const Tensor& t, int64_t dim, const Tensor& index, Scalar value);
/// t treated as 1-D: out[i] = t.flatten()[index[i]]; negative indices count from the end.
Tensor take(const Tensor& t, const Tensor& index);
/// gather with t and indices broadcast apart from dim; without dim, over the flattened t.
Tensor take_along_dim(const Tensor& t, const Tensor& indices, std::optional<int64_t> dim = {});
/// The elements where mask (broadcast with t) is true, as a 1-D tensor.
Tensor masked_select(const Tensor& t, const Tensor& mask);
/// Writes source's leading elements, in order, where mask (broadcast to t) is true.
Tensor masked_scatter(const Tensor& t, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& t, const Tensor& mask, const Tensor& source);
/// Coordinates of the non-zero elements, (n, t.dim()) int64, in row-major order.
Tensor nonzero(const Tensor& t);
/// nonzero(t, as_tuple=True): one 1-D int64 tensor per dim.
std::vector<Tensor> nonzero_tuple(const Tensor& t);
Tensor argwhere(const Tensor& t);

// ── rearranging and searching (src/ops/rearrange.cpp) ───────────────────
Tensor flip(const Tensor& t, IntArrayRef dims);
Tensor fliplr(const Tensor& t);
Tensor flipud(const Tensor& t);
/// Rotates along dims; with no dims, over the flattened tensor (shape kept).
Tensor roll(const Tensor& t, IntArrayRef shifts, IntArrayRef dims = {});
/// Lower / upper triangle of the last two dims; the rest zeroed. diagonal > 0 is above the main.
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor triu(const Tensor& t, int64_t diagonal = 0);
/// 1-D -> square 2-D with t on the given diagonal; 2-D -> 1-D copy of that diagonal.
Tensor diag(const Tensor& t, int64_t diagonal = 0);
/// The last dim of t placed on the diagonal of new dims dim1, dim2 (zeros elsewhere).
Tensor diag_embed(const Tensor& t, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
/// Sum of the main diagonal of a matrix (int64 for integer and bool inputs).
Tensor trace(const Tensor& t);
/// Each element repeated; without dim, over the flattened tensor.
Tensor repeat_interleave(const Tensor& t, int64_t repeats, std::optional<int64_t> dim = {});
Tensor repeat_interleave(const Tensor& t, const Tensor& repeats, std::optional<int64_t> dim = {});
/// repeat_interleave(repeats): index i repeated repeats[i] times.
Tensor repeat_interleave(const Tensor& repeats);
/// indexing "ij" (matrix) or "xy" (Cartesian: the first two output dims swapped).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors,
                             const std::string& indexing = "ij");
/// int64 one-hot encoding in a new last dim; num_classes = -1 uses max(t) + 1.
Tensor one_hot(const Tensor& t, int64_t num_classes = -1);

struct SearchsortedOptions {
  bool out_int32 = false;
  bool right = false;                    // false: first index i with sorted[i] >= v
  std::optional<std::string> side = {};  // "left" or "right", overrides `right`
  Tensor sorter = {};                    // argsort of an unsorted sequence
};
/// Insertion points of values in the innermost dim of sorted_sequence (1-D, or batched with
/// matching leading dims).
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values,
                    SearchsortedOptions options = {});
Tensor searchsorted(const Tensor& sorted_sequence, Scalar value, SearchsortedOptions options = {});
/// searchsorted(boundaries, input, right) for 1-D boundaries.
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false);

struct UniqueOptions {
  bool sorted = true;  // the result is always sorted, as PyTorch's CPU sort path
  bool return_inverse = false;
  bool return_counts = false;
  std::optional<int64_t> dim = {};  // unique slices along dim instead of unique elements
};
/// auto [values, inverse, counts] = unique(t, {.return_inverse = true, .return_counts = true});
/// inverse and counts are undefined unless asked for.
struct UniqueResult {
  Tensor output, inverse_indices, counts;
};
UniqueResult unique(const Tensor& t, UniqueOptions options = {});

// ── sorting and selection (src/ops/sort.cpp) ────────────────────────────
/// (values, indices), NaN sorting as the largest value. stable=true keeps equal elements in
/// input order; stable=false (torch.sort's default) orders them as PyTorch's CPU kernel does.
/// Tensor::sort / Tensor::argsort are stable.
std::tuple<Tensor, Tensor> sort(const Tensor& t, int64_t dim = -1, bool descending = false,
                                bool stable = false);
Tensor argsort(const Tensor& t, int64_t dim = -1, bool descending = false, bool stable = false);
/// The k largest (or smallest) along dim, with their indices, as PyTorch's CPU kernel picks them.
std::tuple<Tensor, Tensor> topk(const Tensor& t, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);
/// The k-th smallest (1-based) along dim and its index.
std::tuple<Tensor, Tensor> kthvalue(const Tensor& t, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
/// Lower median of all elements (NaN if any is NaN).
Tensor median(const Tensor& t);
std::tuple<Tensor, Tensor> median(const Tensor& t, int64_t dim, bool keepdim = false);
/// Median ignoring NaN.
Tensor nanmedian(const Tensor& t);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& t, int64_t dim, bool keepdim = false);
/// Most frequent value along dim (the smallest on ties) and an index where it occurs.
std::tuple<Tensor, Tensor> mode(const Tensor& t, int64_t dim = -1, bool keepdim = false);

}  // namespace ember
