// The choice of the CPU level (Note [CPU levels] in dispatch.h) and the per-level tables.
// The build says which levels it compiled with EMBER_CPU_HAVE_<LEVEL> (CMakeLists.txt); each
// level's object defines ember::cpu::<level>::kLevel (level_kernels.cpp).
#include "backend/cpu/dispatch.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "backend/cpu/kernels.h"
#include "backend/host_cpu.h"
#include "ember/error.h"

namespace ember::cpu {

#if defined(EMBER_CPU_HAVE_BASELINE)
namespace baseline { extern const CpuLevel kLevel; }
#endif
#if defined(EMBER_CPU_HAVE_AVX2)
namespace avx2 { extern const CpuLevel kLevel; }
#endif
#if defined(EMBER_CPU_HAVE_AVX512)
namespace avx512 { extern const CpuLevel kLevel; }
#endif
#if defined(EMBER_CPU_HAVE_NATIVE)
namespace native { extern const CpuLevel kLevel; }
#endif

namespace {

// Lowest first: the automatic choice is the last one the CPU runs.
constexpr const CpuLevel* kCompiled[] = {
#if defined(EMBER_CPU_HAVE_BASELINE)
    &baseline::kLevel,
#endif
#if defined(EMBER_CPU_HAVE_AVX2)
    &avx2::kLevel,
#endif
#if defined(EMBER_CPU_HAVE_AVX512)
    &avx512::kLevel,
#endif
#if defined(EMBER_CPU_HAVE_NATIVE)
    &native::kLevel,
#endif
};
constexpr size_t kCount = std::size(kCompiled);

std::string level_names(const CpuFeatures* runnable_on = nullptr) {
  std::string s;
  for (const CpuLevel* l : kCompiled) {
    if (runnable_on && !has_all(*runnable_on, l->needs)) continue;
    s += s.empty() ? "" : ", ";
    s += l->name;
  }
  return s.empty() ? "none" : s;
}

size_t index_of(const CpuLevel& level) {
  for (size_t i = 0; i < kCount; ++i)
    if (kCompiled[i] == &level) return i;
  detail::throw_error("cpu_capability", std::string("level ") + level.name +
                                            " is not one this build compiled");
}

std::atomic<const backend::Backend*> active{nullptr};

}  // namespace

std::span<const CpuLevel* const> compiled_cpu_levels() { return kCompiled; }

const CpuLevel& choose_cpu_level(const char* requested, const CpuFeatures& cpu) {
  if (requested && *requested) {
    for (const CpuLevel* l : kCompiled) {
      if (std::strcmp(l->name, requested) != 0) continue;
      if (has_all(cpu, l->needs)) return *l;
      fail("cpu_capability", "EMBER_CPU_CAPABILITY=", requested,
           " asks for a level this CPU cannot run: it needs ", cpu_features_string(l->needs),
           "; the CPU has ", cpu_features_string(cpu), " (levels it runs: ", level_names(&cpu),
           ")");
    }
    fail("cpu_capability", "EMBER_CPU_CAPABILITY=", requested,
         " names no CPU level of this build (compiled: ", level_names(),
         "; this CPU runs: ", level_names(&cpu), ")");
  }
  for (size_t i = kCount; i-- > 0;)
    if (has_all(cpu, kCompiled[i]->needs)) return *kCompiled[i];
  fail("cpu_capability", "this CPU (", cpu_features_string(cpu),
       ") runs none of this build's CPU levels (", level_names(), ")");
}

const CpuLevel& cpu_level() {
  static const CpuLevel& level = choose_cpu_level(std::getenv("EMBER_CPU_CAPABILITY"), cpu_features());
  return level;
}

const backend::Backend& kernels_for(const CpuLevel& level) {
  static std::array<backend::Backend, kCount> tables;
  static std::array<std::once_flag, kCount> built;
  const size_t i = index_of(level);
  std::call_once(built[i], [&] {
    backend::Backend& b = tables[i];
    b.name = "cpu";
    add_common_kernels(b);
    level.add_kernels(b);
  });
  return tables[i];
}

const backend::Backend& lowest_level_kernels() {
  static const backend::Backend& table = kernels_for(*kCompiled[0]);
  return table;
}

const backend::Backend* set_cpu_kernels(const backend::Backend* table) {
  return active.exchange(table);
}

}  // namespace ember::cpu

namespace ember::backend::detail {

// The CPU backend: the chosen level's table, looked up once (so ops that run during static
// initialisation find it complete).
const Backend& cpu_backend() {
  const Backend* b = cpu::active.load(std::memory_order_acquire);
  if (!b) [[unlikely]] {
    b = &cpu::kernels_for(cpu::cpu_level());
    const Backend* expected = nullptr;
    cpu::active.compare_exchange_strong(expected, b);
  }
  return *b;
}

}  // namespace ember::backend::detail

namespace ember::backend {

int vector_bits() { return cpu::cpu_level().needs.avx512f ? 512 : 256; }

}  // namespace ember::backend
