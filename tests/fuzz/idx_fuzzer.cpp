// libFuzzer target for the idx reader of MNIST-style datasets (data::read_idx: the magic, the
// big-endian dims, the values; plain or gzipped). Any ember::Error is a correct answer; a crash,
// hang, leak, sanitizer report or an allocation beyond the fuzzer's limit is a bug.
#include <cstdint>

#include "ember/data/idx.h"
#include "ember/error.h"
#include "fuzz/mem_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ember::fuzz::MemFile f(data, size);
  try {
    ember::data::read_idx(f.path);
  } catch (const ember::Error&) {
  }
  return 0;
}
