// libFuzzer target for the checkpoint readers. The first byte picks what the rest is:
//   0: a data.pkl stream, unpickled directly (storages are served from memory, so mutations
//      reach the unpickler instead of failing the zip CRC);
//   1: a whole .pt file for load();   2: a .safetensors file for load_file().
// Any ember::Error is a correct answer; a crash, hang, leak or sanitizer report is a bug.
// Build: cmake -DEMBER_BUILD_FUZZ=ON with clang (see tests/fuzz/CMakeLists.txt).
#include <cstdint>
#include <string>

#include "ember/error.h"
#include "ember/safetensors.h"
#include "ember/serialize.h"
#include "fuzz/mem_file.h"
#include "serialize/pickle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  ++data, --size;
  try {
    if (mode == 0) {
      ember::serialize::UnpickleOptions o;
      o.weights_only = false;
      o.load_storage = [](const ember::serialize::StorageRef& ref) {
        const uint64_t bytes = uint64_t(ref.numel) * uint64_t(ember::itemsize(ref.dtype));
        if (ref.numel > (1 << 16)) ember::fail("fuzz", "storage too big");
        return ember::make_intrusive<ember::StorageImpl>(size_t(bytes), ember::Device(ember::kCPU));
      };
      ember::serialize::unpickle(
          std::string_view(reinterpret_cast<const char*>(data), size), o);
    } else {
      const ember::fuzz::MemFile f(data, size);
      if (mode == 1) ember::load(f.path);
      else ember::safetensors::load_file(f.path);
    }
  } catch (const ember::Error&) {
  }
  return 0;
}
