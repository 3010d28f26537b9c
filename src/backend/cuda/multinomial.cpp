// The host side of the CUDA multinomial sampling with replacement: the kCUDA backend's
// multinomial_with_replacement entry. It plans the work (multinomial_plan.cpp, tested in every
// build with the emulated kernels), queues the copy and the renormalisation, reads the record
// back to raise the CPU kernel's error for a bad row (a sync; PyTorch asserts on the device
// instead, which poisons the context), then queues the prefix sums and the sampling.
#include "backend/backend.h"
#include "backend/cuda/index_record.h"
#include "backend/cuda/multinomial_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void multinomial_with_replacement(const Tensor& probs, const Tensor& result, Generator* gen) {
  const char* op = "multinomial";
  const Device device = probs.device();
  const RandomTarget target = random_target(op, device, gen);
  const MultinomialWork w = plan_multinomial(probs, new_index_record(device));
  launch_on(device, op, &kernels::launch_copy, w.copy);
  launch_on(device, op, &kernels::launch_renorm_rows, w.renorm);
  const auto [recorded, entry] = read_index_record(w.record);
  multinomial_error(recorded, entry);
  launch_on(device, op, &kernels::launch_scan, w.scan);
  launch_on(device, op, &kernels::launch_multinomial,
            plan_multinomial_samples(w, result, target.gen));
}

}  // namespace

void install_multinomial_kernels(backend::Backend& b) {
  b.random.multinomial_with_replacement = &multinomial_with_replacement;
}

}  // namespace ember::cuda
