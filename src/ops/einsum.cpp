// einsum: parses the equation, lines every operand up on one global list of dims (output dims
// first, then summed ones; size 1 where an operand lacks a dim), and contracts the operands left
// to right, each pair as permute + reshape + one bmm. Built only from public ops (views, sum,
// bmm), so its gradient comes from theirs.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "ember/linalg.h"

namespace ember {
namespace {

constexpr int kNumLabels = 52;  // A-Z then a-z: the order of an implicit output
constexpr int kEllipsisLabel = -1;  // stands for "..." in a list of labels

bool is_label(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int label_of(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char char_of(int label) { return label < 26 ? char('A' + label) : char('a' + label - 26); }

// One side's subscripts: labels in order, kEllipsisLabel where "..." stands.
struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
};

// Parses eq[begin, end) into terms: the inputs (split at ',') when `many`, else the output.
std::vector<Term> parse_terms(std::string_view eq, size_t begin, size_t end, bool many) {
  std::vector<Term> terms(1);
  for (size_t i = begin; i < end; ++i) {
    const char c = eq[i];
    Term& term = terms.back();
    if (c == ' ') continue;
    if (c == ',' && many) {
      terms.emplace_back();
    } else if (c == '.') {
      if (many) {
        EMBER_CHECK(!term.has_ellipsis, "einsum", "einsum(): found '.' for operand ",
                    terms.size() - 1, " for which an ellipsis was already found");
        EMBER_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', "einsum",
                    "einsum(): found '.' for operand ", terms.size() - 1,
                    " that is not part of any ellipsis");
      } else {
        EMBER_CHECK(!term.has_ellipsis, "einsum",
                    "einsum(): found '.' for output but an ellipsis (...) was already found");
        EMBER_CHECK(i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.', "einsum",
                    "einsum(): found '.' for output that is not part of any ellipsis");
      }
      term.labels.push_back(kEllipsisLabel);
      term.has_ellipsis = true;
      i += 2;
    } else {
      EMBER_CHECK(is_label(c), "einsum", "einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z]");
      term.labels.push_back(label_of(c));
    }
  }
  return terms;
}

// t summed over `dims`, which stay as size 1; an empty list sums nothing (unlike sum()).
// Integer sums are int64, as PyTorch's einsum gives them.
Tensor sum_keepdim(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : t.sum(dims, /*keepdim=*/true);
}

// Contracts a and b (both rank R, size 1 where a dim is absent) over the dims marked in is_sum,
// keeping every dim (summed ones as size 1). Dims split into batch (in both, kept), lo (only a),
// ro (only b) and contracted (in both, summed): (B, LO, S) @ (B, S, RO) in one bmm.
Tensor sumproduct_pair(Tensor a, Tensor b, const std::vector<bool>& is_sum) {
  const int64_t R = a.dim();
  std::vector<int64_t> batch, lo, ro, contract, a_only, b_only, rest;
  for (int64_t d = 0; d < R; ++d) {
    const bool in_a = a.size(d) != 1, in_b = b.size(d) != 1;
    if (in_a && in_b)
      (is_sum[size_t(d)] ? contract : batch).push_back(d);
    else if (in_a)
      (is_sum[size_t(d)] ? a_only : lo).push_back(d);
    else if (in_b)
      (is_sum[size_t(d)] ? b_only : ro).push_back(d);
    else
      rest.push_back(d);
  }
  // A summed dim that only one side has is summed on that side first.
  a = sum_keepdim(a, a_only);
  b = sum_keepdim(b, b_only);
  rest.insert(rest.end(), a_only.begin(), a_only.end());
  rest.insert(rest.end(), b_only.begin(), b_only.end());
  auto size_of = [&](const std::vector<int64_t>& dims, const Tensor& t) {
    int64_t n = 1;
    for (int64_t d : dims) n *= t.size(d);
    return n;
  };
  const int64_t B = size_of(batch, a), LO = size_of(lo, a), RO = size_of(ro, b),
                S = size_of(contract, a);
  auto join = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> out;
    for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
  };
  // Trailing dims of the permutations are size 1 on that side, so the reshapes only merge.
  const Tensor a3 = a.permute(join({&batch, &lo, &contract, &ro, &rest})).reshape({B, LO, S});
  const Tensor b3 = b.permute(join({&batch, &contract, &ro, &lo, &rest})).reshape({B, S, RO});
  const Tensor r = bmm(a3, b3);  // (B, LO, RO)
  // Back to rank R in the original dim order.
  const std::vector<int64_t> order = join({&batch, &lo, &ro, &contract, &rest});
  DimVector sizes;
  for (int64_t d : batch) sizes.push_back(a.size(d));
  for (int64_t d : lo) sizes.push_back(a.size(d));
  for (int64_t d : ro) sizes.push_back(b.size(d));
  sizes.resize(size_t(R), 1);
  std::vector<int64_t> inverse(static_cast<size_t>(R));
  for (int64_t i = 0; i < R; ++i) inverse[size_t(order[size_t(i)])] = i;
  return r.view(sizes).permute(inverse);
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "einsum", "einsum(): must provide at least one operand");
  const size_t arrow = equation.find("->");
  const size_t lhs_end = arrow == std::string_view::npos ? equation.size() : arrow;
  const std::vector<Term> terms = parse_terms(equation, 0, lhs_end, true);
  EMBER_CHECK(terms.size() >= tensors.size(), "einsum",
              "einsum(): more operands were provided than specified in the equation");
  EMBER_CHECK(terms.size() <= tensors.size(), "einsum",
              "einsum(): fewer operands were provided than specified in the equation");

  // Dims each operand's ellipsis covers, and how often each label occurs in the inputs.
  const size_t n_ops = tensors.size();
  std::vector<int64_t> ell_dims(n_ops, 0);
  int64_t ell_max = 0;
  std::array<int, kNumLabels> counts{};
  for (size_t i = 0; i < n_ops; ++i) {
    const Term& term = terms[i];
    const int64_t n_labels = int64_t(term.labels.size()) - (term.has_ellipsis ? 1 : 0);
    const int64_t ndim = tensors[i].dim();
    if (term.has_ellipsis) {
      EMBER_CHECK(n_labels <= ndim, "einsum",
                  "einsum(): the number of subscripts in the equation (", n_labels,
                  ") is more than the number of dimensions (", ndim, ") for operand ", i);
      ell_dims[i] = ndim - n_labels;
      ell_max = std::max(ell_max, ell_dims[i]);
    } else {
      EMBER_CHECK(n_labels == ndim, "einsum",
                  "einsum(): the number of subscripts in the equation (", n_labels,
                  ") does not match the number of dimensions (", ndim, ") for operand ", i,
                  " and no ellipsis was given");
    }
    for (int l : term.labels)
      if (l != kEllipsisLabel) ++counts[size_t(l)];
  }

  // Output labels: explicit after "->", else the ellipsis then labels seen once, in order.
  std::vector<int> out_labels;
  if (arrow != std::string_view::npos) {
    const std::vector<Term> out = parse_terms(equation, arrow + 2, equation.size(), false);
    std::array<bool, kNumLabels> seen{};
    for (int l : out[0].labels) {
      if (l != kEllipsisLabel) {
        EMBER_CHECK(counts[size_t(l)] > 0, "einsum", "einsum(): output subscript ", char_of(l),
                    " does not appear in the equation for any input operand");
        EMBER_CHECK(!seen[size_t(l)], "einsum", "einsum(): output subscript ", char_of(l),
                    " appears more than once in the output");
        seen[size_t(l)] = true;
      }
      out_labels.push_back(l);
    }
  } else {
    out_labels.push_back(kEllipsisLabel);
    for (int l = 0; l < kNumLabels; ++l)
      if (counts[size_t(l)] == 1) out_labels.push_back(l);
  }

  // Global dims: the output's (ellipsis dims where "..." stands), then summed labels, then the
  // ellipsis dims if the output dropped them (they are summed too).
  std::array<int64_t, kNumLabels> label_dim;
  label_dim.fill(-1);
  int64_t ell_start = -1, total = 0;
  for (int l : out_labels) {
    if (l == kEllipsisLabel) {
      ell_start = total;
      total += ell_max;
    } else {
      label_dim[size_t(l)] = total++;
    }
  }
  const int64_t out_rank = total;
  for (int l = 0; l < kNumLabels; ++l)
    if (counts[size_t(l)] > 0 && label_dim[size_t(l)] < 0) label_dim[size_t(l)] = total++;
  if (ell_start < 0) {
    ell_start = total;
    total += ell_max;
  }
  std::vector<int> global_label(size_t(total), kEllipsisLabel);
  for (int l = 0; l < kNumLabels; ++l)
    if (label_dim[size_t(l)] >= 0) global_label[size_t(label_dim[size_t(l)])] = l;

  // Each operand as a rank-`total` view: diagonals for repeated labels, size-1 dims for absent
  // ones, permuted into global order; sizes must agree or broadcast from 1.
  std::vector<Tensor> ops;
  DimVector global_size(size_t(total), 1);
  for (size_t i = 0; i < n_ops; ++i) {
    Tensor t = tensors[i];
    std::vector<int64_t> dim_global;  // global dim of each of t's dims
    for (int l : terms[i].labels) {
      if (l != kEllipsisLabel) {
        dim_global.push_back(label_dim[size_t(l)]);
        continue;
      }
      for (int64_t e = 0; e < ell_dims[i]; ++e)  // right-aligned, like broadcasting
        dim_global.push_back(ell_start + ell_max - ell_dims[i] + e);
    }
    for (size_t d = 0; d < dim_global.size(); ++d) {
      const auto first =
          std::find(dim_global.begin(), dim_global.begin() + int64_t(d), dim_global[d]);
      if (first == dim_global.begin() + int64_t(d)) continue;
      const int64_t f = first - dim_global.begin();
      EMBER_CHECK(t.size(int64_t(d)) == t.size(f), "einsum", "einsum(): subscript ",
                  char_of(global_label[size_t(dim_global[d])]), " is repeated for operand ", i,
                  " but the sizes don't match, ", t.size(int64_t(d)), " != ", t.size(f));
      // The diagonal replaces both dims with one at the end; move it back to the first's place.
      t = t.diagonal(0, f, int64_t(d)).movedim(-1, f);
      dim_global.erase(dim_global.begin() + int64_t(d));
      --d;
    }
    std::vector<int64_t> perm(size_t(total), -1);
    for (size_t d = 0; d < dim_global.size(); ++d) perm[size_t(dim_global[d])] = int64_t(d);
    while (t.dim() < total) t = t.unsqueeze(-1);
    int64_t next = int64_t(dim_global.size());
    for (int64_t& p : perm)
      if (p < 0) p = next++;
    t = t.permute(perm);
    for (int64_t g = 0; g < total; ++g) {
      const int64_t s = t.size(g);
      int64_t& seen = global_size[size_t(g)];
      if (s == 1 || s == seen || seen == 1) {
        if (s != 1) seen = s;
        continue;
      }
      if (g >= ell_start && g < ell_start + ell_max)
        fail("einsum", "einsum(): dimension ", g - ell_start - (ell_max - ell_dims[i]),
             " covered by ellipsis in operand ", i, " has size ", s,
             " which does not broadcast with previously seen ellipsis with size ", seen,
             " for the respective dimension");
      fail("einsum", "einsum(): subscript ", char_of(global_label[size_t(g)]), " has size ", s,
           " for operand ", i, " which does not broadcast with previously seen size ", seen);
    }
    ops.push_back(t);
  }

  // Contract left to right. A summed dim is summed at the last operand that has it (size != 1).
  Tensor result;
  if (n_ops == 1) {
    std::vector<int64_t> sum;
    for (int64_t g = out_rank; g < total; ++g)
      if (ops[0].size(g) != 1) sum.push_back(g);
    result = sum_keepdim(ops[0], sum);
  } else {
    std::vector<int64_t> last_op(size_t(total), -1);
    for (size_t i = 0; i < n_ops; ++i)
      for (int64_t g = 0; g < total; ++g)
        if (ops[i].size(g) != 1) last_op[size_t(g)] = int64_t(i);
    std::vector<int64_t> sum0;
    for (int64_t g = out_rank; g < total; ++g)
      if (last_op[size_t(g)] == 0) sum0.push_back(g);
    result = sum_keepdim(ops[0], sum0);
    for (size_t i = 1; i < n_ops; ++i) {
      std::vector<bool> is_sum(size_t(total), false);
      for (int64_t g = out_rank; g < total; ++g)
        is_sum[size_t(g)] = last_op[size_t(g)] <= int64_t(i);
      result = sumproduct_pair(result, ops[i], is_sum);
    }
  }
  // Every non-output dim is size 1 now: drop them.
  return result.reshape(IntArrayRef(result.sizes().data(), size_t(out_rank)));
}

}  // namespace ember
