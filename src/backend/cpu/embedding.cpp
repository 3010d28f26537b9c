// CPU kernels of the embedding (src/ops/embedding.cpp): row lookup, torch.embedding_renorm_ and
// the dense weight gradient. Each checks the indices against the table's rows first.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend/cpu/kernels.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

// The indices (int64, contiguous), each checked against [0, num).
const int64_t* checked_indices(const char* op, const Tensor& indices, int64_t num) {
  const int64_t* idx = indices.data_ptr<int64_t>();
  for (int64_t j = 0; j < indices.numel(); ++j)
    EMBER_CHECK(idx[j] >= 0 && idx[j] < num, op, "index out of range in self");
  return idx;
}

void embedding_kernel(const char* op, const Tensor& out, const Tensor& w, const Tensor& indices) {
  const int64_t* idx = checked_indices(op, indices, w.size(0));
  const int64_t D = w.size(1), n = indices.numel(), row = D * w.element_size();
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(D, 1)),
               [&](int64_t a, int64_t b) {
                 for (int64_t i = a; i < b; ++i)
                   std::memcpy(dst + i * row, src + idx[i] * row, size_t(row));
               });
}

// Each distinct row looked up, in sorted index order, through public ops on the row (its norm
// as torch.norm computes it).
void embedding_renorm_kernel(const char* op, const Tensor& weight, const Tensor& indices,
                             double max_norm, double norm_type) {
  const int64_t* p = checked_indices(op, indices, weight.size(0));
  std::vector<int64_t> idx(p, p + indices.numel());
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  for (int64_t i : idx) {
    Tensor row = weight.select(0, i);
    const double norm = row.norm(norm_type).item<double>();
    if (norm > max_norm) row.mul_(max_norm / (norm + 1e-7));
  }
}

void embedding_backward_kernel(const char* op, const Tensor& gw, const Tensor& g,
                               const Tensor& indices, int64_t pad, bool scale_grad_by_freq) {
  const int64_t num_weights = gw.size(0), D = gw.size(1), n = indices.numel();
  const int64_t* idx = checked_indices(op, indices, num_weights);
  std::vector<int64_t> count;
  if (scale_grad_by_freq) {
    count.assign(size_t(num_weights), 0);
    for (int64_t i = 0; i < n; ++i) ++count[size_t(idx[i])];
  }
  dispatch<DtypeSet::Floating>(gw.dtype(), op, [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* gp = g.data_ptr<T>();
      T* wp = gw.data_ptr<T>();
      // Serial in index order, so repeated indices sum in PyTorch's order.
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = idx[i];
        if (r == pad) continue;
        const T s = scale_grad_by_freq ? T(1) / T(count[size_t(r)]) : T(1);
        for (int64_t d = 0; d < D; ++d) wp[r * D + d] += gp[i * D + d] * s;
      }
    }
  });
}

}  // namespace

void add_embedding_kernels(backend::Backend& b) {
  b.embedding.embedding = &embedding_kernel;
  b.embedding.embedding_renorm = &embedding_renorm_kernel;
  b.embedding.embedding_backward = &embedding_backward_kernel;
}

}  // namespace ember::cpu
