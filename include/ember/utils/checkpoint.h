// Activation checkpointing: trade compute for memory. checkpoint(fn, inputs) runs fn without
// keeping the activations its backward needs and recomputes them when the backward reaches them
// (PyTorch's torch.utils.checkpoint.checkpoint with use_reentrant=False);
// apply_activation_checkpointing does that for every submodule a predicate picks (the
// reference's `check_fn=lambda m: isinstance(m, TransformerBlock)`).
//
//   Tensor y = utils::checkpoint([&](const Tensor& x) { return block(x); }, x);
//   utils::apply_activation_checkpointing(*model, [](const nn::Module& m) {
//     return dynamic_cast<const nn::TransformerEncoderLayerImpl*>(&m) != nullptr;
//   });
//
// fn runs again inside backward, so whatever it captures by reference must outlive the backward.
#pragma once

#include <concepts>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn {
class Module;
}

namespace ember::utils {

struct CheckpointOptions {
  /// Restore the default generator's state of the forward before recomputing, so that dropout
  /// draws the same mask again (and put the surrounding state back afterwards).
  bool preserve_rng_state = true;
};

using CheckpointFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// Runs fn(inputs) keeping none of the tensors its graph saves; the first backward that needs
/// one recomputes fn (under the forward's RNG state and autocast settings) and takes them from
/// there. Gradients equal those without checkpointing, and reach parameters used inside fn even
/// when no input requires grad. Nested checkpoints inside fn work. fn must compute the same
/// graph again: a recompute that saves fewer tensors than the forward is an ember::Error.
std::vector<Tensor> checkpoint(const CheckpointFunction& fn, const std::vector<Tensor>& inputs,
                               CheckpointOptions options = {});

/// checkpoint for a function of tensors returning one tensor: checkpoint(fn, x, y).
template <class F, class... T>
requires(std::convertible_to<const T&, const Tensor&>&&...) &&
    std::convertible_to<std::invoke_result_t<F&, const T&...>, Tensor> Tensor
    checkpoint(F fn, const T&... inputs) {
  CheckpointFunction erased = [fn = std::move(fn)](const std::vector<Tensor>& in) mutable {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::vector<Tensor>{Tensor(fn(in[I]...))};
    }
    (std::index_sequence_for<T...>{});
  };
  return checkpoint(erased, std::vector<Tensor>{Tensor(inputs)...})[0];
}

/// Makes every descendant module of `model` for which check_fn is true (model itself is never
/// wrapped, as PyTorch's only_wrap_children) run its forward under checkpoint() whenever it is
/// called through its handle or a container (layer(x), Sequential, TransformerEncoder), as
/// PyTorch's hooks run for mod(x) but not mod.forward(x). Parameter names and state dicts are
/// unchanged; a matched module inside a matched module is checkpointed in its parent's. A module
/// already checkpointed is an ember::Error. Returns the dotted names of the modules it wrapped, in
/// named_modules() order.
std::vector<std::string> apply_activation_checkpointing(
    nn::Module& model, const std::function<bool(const nn::Module&)>& check_fn,
    CheckpointOptions options = {});

/// Whether apply_activation_checkpointing wrapped this module.
bool is_activation_checkpointed(const nn::Module& module);

}  // namespace ember::utils
