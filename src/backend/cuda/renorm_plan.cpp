// See renorm_plan.h.
#include "backend/cuda/renorm_plan.h"

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {

kernels::RenormLaunch plan_renorm_launch(const char* op, kernels::RenormLaunch::Pass pass,
                                         const Tensor& weight, const Tensor& indices,
                                         const Tensor& owner, int64_t* bad, double max_norm,
                                         double norm_type) {
  EMBER_CHECK(weight.is_floating_point(), op, "the cuda backend has no ",
              dtype_name(weight.dtype()), " kernel yet");
  EMBER_CHECK(weight.dim() == 2 && weight.is_contiguous() && indices.dtype() == kInt64 &&
                  indices.is_contiguous() && owner.dtype() == kInt64 &&
                  owner.numel() == weight.size(0),
              op, "expected a contiguous (num, D) weight, contiguous int64 indices and int64 ",
              "scratch of num entries, got ", weight.sizes(), ", ", indices.dtype(), " ",
              indices.sizes(), " and ", owner.dtype(), " ", owner.sizes());
  kernels::RenormLaunch l{};
  l.pass = pass;
  l.type = storage_type(weight.dtype(), op);
  l.num = weight.size(0);
  l.D = weight.size(1);
  l.n = indices.numel();
  l.indices = indices.data_ptr<int64_t>();
  l.owner = owner.data_ptr<int64_t>();
  l.bad = bad;
  l.weight = static_cast<char*>(weight.data_ptr());
  l.max_norm = max_norm;
  l.norm_type = norm_type;
  // own: a thread per entry; renorm: a block per entry, its threads over the row (a warp for a
  // short row, as block_reduce needs whole warps).
  l.threads = pass == kernels::RenormLaunch::own ? kElementwiseThreads : l.D <= 32 ? 32 : 128;
  l.blocks = pass == kernels::RenormLaunch::own ? grid_blocks(l.n) : grid_blocks(l.n, 1);
  return l;
}

}  // namespace ember::cuda
