// The host side of the CUDA embedding_renorm: the kCUDA backend's embedding.embedding_renorm
// entry. The first pass marks each row's owning entry and checks the indices; the bad-index record
// is read back (index_record.h) so an index out of range raises the CPU's error before any row
// changes; the second pass renormalises each distinct row once (renorm_launch.h).
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/index_record.h"
#include "backend/cuda/renorm_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void embedding_renorm(const char* op, const Tensor& weight, const Tensor& indices, double max_norm,
                      double norm_type) {
  if (indices.numel() == 0) return;
  const Tensor record = new_index_record(weight.device());
  const Tensor owner = backend::new_buffer({weight.size(0)}, kInt64, weight.device(), op);
  int64_t* bad = record.data_ptr<int64_t>();
  using Pass = kernels::RenormLaunch;
  launch_on(weight.device(), op, &kernels::launch_renorm,
            plan_renorm_launch(op, Pass::own, weight, indices, owner, bad, max_norm, norm_type));
  EMBER_CHECK(read_index_record(record)[0] == 0, op, "index out of range in self");
  if (weight.numel() == 0) return;
  launch_on(weight.device(), op, &kernels::launch_renorm,
            plan_renorm_launch(op, Pass::renorm, weight, indices, owner, bad, max_norm, norm_type));
}

}  // namespace

void install_renorm_kernels(backend::Backend& b) {
  b.embedding.embedding_renorm = &embedding_renorm;
}

}  // namespace ember::cuda
