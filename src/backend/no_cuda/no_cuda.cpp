// Linked into CPU-only builds in place of the CUDA backend: CUDA is reported absent and anything
// that would need it throws one clear error.
#include "backend/cuda_api.h"
#include "ember/cuda.h"
#include "ember/error.h"

namespace ember::cuda {
namespace {
[[noreturn]] void no_cuda(const char* op) {
  fail(op, "ember was built without CUDA support; rebuild with -DEMBER_CUDA=ON on a machine with "
           "the CUDA toolkit to use CUDA devices");
}
}  // namespace

bool is_available() { return false; }
int device_count() { return 0; }
void* allocate(Device, size_t) { no_cuda("cuda"); }
void free(Device, void*, size_t) { no_cuda("cuda"); }
void copy_bytes(void*, Device, const void*, Device, size_t) { no_cuda("to"); }

}  // namespace ember::cuda

namespace ember::cuda {
void synchronize() { no_cuda("cuda.synchronize"); }
}  // namespace ember::cuda
