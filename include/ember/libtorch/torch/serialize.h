// LibTorch's torch::save / torch::load on ember, writing PyTorch's own format (what Python's
// torch.save writes, read by Python's torch.load) instead of LibTorch's TorchScript archives:
//   torch::save(model, "model.pt")      the module's state dict, as torch.save(model.state_dict())
//   torch::load(model, "model.pt")      into the module's parameters and buffers (also from
//                                       Python's torch.save(model.state_dict()))
//   torch::save(tensor, "t.pt")         the tensor itself;   torch::load(tensor, "t.pt")
//   torch::save(tensors, "v.pt")        a list of tensors;   torch::load(tensors, "v.pt") appends
//   torch::save(optimizer, "opt.pt")    PyTorch's optimizer.state_dict();  torch::load(optimizer,
//   ..)
// each also to/from a std::ostream / std::istream, a writer function, memory (load), with an
// optional device for load (torch.load's map_location). Anything else with archive operators
// (operator<<(OutputArchive&, const T&)) goes through an archive, as in LibTorch.
// pickle_save / pickle_load give the bytes of such a file (torch.load(io.BytesIO(bytes)) in
// Python). LibTorch's TorchScript archives (torch::save by real LibTorch, torch.jit.save) are not
// read: the reader says so.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "ember/tensor.h"
#include "ember/value.h"
#include "torch/serialize/archive.h"
#include "torch/serialize/module.h"
#include "torch/serialize/tensor.h"
#include "torch/types.h"

namespace torch {

template <class T, class... SaveToArgs>
void save(const T& value, SaveToArgs&&... args) {
  if constexpr (std::is_convertible_v<const T&, const ember::Tensor&>) {
    // The tensor itself rather than LibTorch's {"0": tensor}, so that Python reads a tensor.
    serialize::detail::save_value(ember::Value(ember::Tensor(value)),
                                  std::forward<SaveToArgs>(args)...);
  } else {
    serialize::OutputArchive archive;
    archive << value;
    archive.save_to(std::forward<SaveToArgs>(args)...);
  }
}

/// A list of the tensors (LibTorch's keys "0", "1", ... as a Python list).
template <class... SaveToArgs>
void save(const std::vector<ember::Tensor>& tensor_vec, SaveToArgs&&... args) {
  ember::List list(tensor_vec.begin(), tensor_vec.end());
  serialize::detail::save_value(ember::Value(std::move(list)), std::forward<SaveToArgs>(args)...);
}

template <class T, class... LoadFromArgs>
void load(T& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

/// Appends the file's tensors to `tensor_vec`, as LibTorch.
template <class... LoadFromArgs>
void load(std::vector<ember::Tensor>& tensor_vec, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  for (size_t i = 0;; ++i) {
    ember::Tensor value;
    if (!archive.try_read(std::to_string(i), value)) break;
    tensor_vec.push_back(std::move(value));
  }
}

/// The bytes of a torch.save file holding `ivalue`.
std::vector<char> pickle_save(const c10::IValue& ivalue);
/// The value in the bytes of a torch.save file (from pickle_save or Python's torch.save).
c10::IValue pickle_load(const std::vector<char>& data);

}  // namespace torch
