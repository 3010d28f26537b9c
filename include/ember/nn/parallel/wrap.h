// FSDP's auto-wrap policies (torch.distributed.fsdp.wrap): which submodules become FSDP units.
//
//   auto policy = nn::transformer_auto_wrap_policy<nn::TransformerEncoderLayerImpl>();
//   auto fsdp = nn::FullyShardedDataParallel(model, {.auto_wrap = policy});
//
// A policy is asked twice per module, as in 1.13's _recursive_wrap: with recurse = true whether
// to look inside it (unwrapped_params: the numel of its parameters no unit owns yet), then, once
// its children are done, with recurse = false whether it becomes a unit (unwrapped_params: what
// its children's units left over). The root always becomes a unit for whatever remains.
#pragma once

#include <cstdint>
#include <functional>

#include "ember/nn/module.h"

namespace ember::nn {

using AutoWrapPolicy =
    std::function<bool(const Module& module, bool recurse, int64_t unwrapped_params)>;

/// Every module with at least `min_num_params` unwrapped parameter elements becomes a unit
/// (1.13's size_based_auto_wrap_policy; its default of 1e8).
AutoWrapPolicy size_based_auto_wrap_policy(int64_t min_num_params = 100000000);

/// Every module of one of the given types becomes a unit; everything else (embeddings, heads)
/// stays in the root unit. 1.13's transformer_auto_wrap_policy(transformer_layer_cls={...}).
template <class... Layers>
AutoWrapPolicy transformer_auto_wrap_policy() {
  return [](const Module& module, bool recurse, int64_t) {
    return recurse || ((dynamic_cast<const Layers*>(&module) != nullptr) || ...);
  };
}

}  // namespace ember::nn
