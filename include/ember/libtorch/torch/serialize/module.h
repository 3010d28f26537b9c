// The archive operators for modules (LibTorch declares them with nn::Module and ModuleHolder):
// a module goes in as its state dict — dotted names of parameters and persistent buffers, an
// OrderedDict for Python, what torch.save(model.state_dict()) writes — and comes out of one:
// every parameter and buffer of the module must be there with its shape (the error names each
// missing key and each shape that differs, and nothing is changed then); keys the module does
// not have are ignored, as LibTorch reads only what it needs.
//
// A module is given as anything that dereferences to an ember::nn::Module (torch::nn::Linear,
// std::shared_ptr<Net>, ...).
#pragma once

#include <concepts>
#include <type_traits>

#include "ember/nn/module.h"
#include "torch/serialize/archive.h"

namespace torch::serialize {

namespace detail {
template <class M>
concept ModuleHandle = requires(const M& m) {
  requires std::derived_from<std::remove_cvref_t<decltype(*m)>, ember::nn::Module>;
};

void write_module(OutputArchive& archive, const ember::nn::Module& module);
void read_module(InputArchive& archive, ember::nn::Module& module);
}  // namespace detail

template <detail::ModuleHandle M>
OutputArchive& operator<<(OutputArchive& archive, const M& module) {
  detail::write_module(archive, *module);
  return archive;
}

template <detail::ModuleHandle M>
InputArchive& operator>>(InputArchive& archive, const M& module) {
  detail::read_module(archive, *module);
  return archive;
}

}  // namespace torch::serialize
