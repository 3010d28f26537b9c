// LibTorch's OutputArchive on ember: an ordered dict of keys to values (tensors, IValues, nested
// archives) that save_to() writes as torch.save writes a dict, so Python's torch.load reads it.
// (LibTorch's archives are TorchScript modules; ember writes PyTorch's own format instead.)
//
//   torch::serialize::OutputArchive archive;
//   archive.write("epoch", torch::IValue(3));
//   archive.write("weights", tensor);
//   archive.save_to("checkpoint.pt");     // torch.load("checkpoint.pt") -> {"epoch": 3, ...}
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>

#include "ATen/core/ivalue.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace torch::serialize {

namespace detail {
/// Writes `value` as torch.save does: to a file, to a stream, or through a writer function
/// (which returns how many bytes it took; fewer is an error).
void save_value(const ember::Value& value, const std::string& filename);
void save_value(const ember::Value& value, std::ostream& stream);
void save_value(const ember::Value& value, const std::function<size_t(const void*, size_t)>& func);
}  // namespace detail

class OutputArchive final {
 public:
  OutputArchive() = default;
  OutputArchive(OutputArchive&&) = default;
  OutputArchive& operator=(OutputArchive&&) = default;
  OutputArchive(const OutputArchive&) = delete;
  OutputArchive& operator=(const OutputArchive&) = delete;

  void write(const std::string& key, const c10::IValue& ivalue);
  /// A tensor, detached (`is_buffer` is LibTorch's and changes nothing here).
  void write(const std::string& key, const ember::Tensor& tensor, bool is_buffer = false);
  /// A nested archive: a dict inside this one.
  void write(const std::string& key, OutputArchive& nested_archive);

  void save_to(const std::string& filename);
  void save_to(std::ostream& stream);
  void save_to(const std::function<size_t(const void*, size_t)>& func);

  /// write(), for code shared by both archive kinds.
  template <class... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }

  /// ember: what the archive holds. A module's state dict written into it makes it an ordered
  /// dict (an OrderedDict in Python, as model.state_dict()).
  const ember::Dict& dict() const { return dict_; }
  ember::Dict& dict() { return dict_; }

 private:
  ember::Dict dict_;
};

}  // namespace torch::serialize
