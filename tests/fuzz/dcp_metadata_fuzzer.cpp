// libFuzzer target for the distributed checkpoint's `.metadata` reader (a pickle of
// torch.distributed.checkpoint's Metadata: tensor and bytes entries, chunk offsets and sizes,
// storage indices). Any ember::Error is a correct answer; a crash, hang, leak or sanitizer report
// is a bug.
#include <cstdint>
#include <string_view>

#include "distributed/checkpoint/metadata.h"
#include "ember/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ember::dcp::detail::read_metadata(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz/.metadata");
  } catch (const ember::Error&) {
  }
  return 0;
}
