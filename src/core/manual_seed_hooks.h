// Generators that live above core (the CUDA backend's Philox generators) register here, so that
// ember::manual_seed seeds them too, as torch.manual_seed seeds every device's generator,
// without core including the backend. A registration sits beside the generators it seeds: a
// program that links them (anything that draws from them does) is a program that seeds them.
#pragma once

#include <cstdint>

namespace ember::detail {

using ManualSeedHook = void (*)(uint64_t seed);

/// Adds `hook` to what manual_seed calls after seeding the CPU generator. Returns true, so a
/// namespace-scope constant can register at static initialisation.
bool add_manual_seed_hook(ManualSeedHook hook);

}  // namespace ember::detail
