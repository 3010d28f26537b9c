// LibTorch's InputArchive on ember: what load_from() read with ember's torch.load reader (files
// from torch.save in Python or from torch::save here), seen as a dict of keys. A file whose top
// level is not a dict is seen as LibTorch's archives would hold it: a tensor as key "0", a list
// or tuple as keys "0", "1", ... (so torch::load(tensor) and torch::load(vector) read them).
// LibTorch's own TorchScript archives are not read: ember's reader says so.
//
//   torch::serialize::InputArchive archive;
//   archive.load_from("checkpoint.pt");
//   torch::IValue epoch;  archive.read("epoch", epoch);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "ember/device.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace torch::serialize {

namespace detail {
/// Reads what torch.save wrote, from a file or from memory; `device` maps every storage there
/// (torch.load's map_location), else each stays where it was saved.
ember::Value load_value(const std::string& filename, std::optional<ember::Device> device);
ember::Value load_value(const char* data, size_t size, std::optional<ember::Device> device);
}  // namespace detail

class InputArchive final {
 public:
  InputArchive() = default;
  InputArchive(InputArchive&&) = default;
  InputArchive& operator=(InputArchive&&) = default;
  InputArchive(const InputArchive&) = delete;
  InputArchive& operator=(const InputArchive&) = delete;

  /// Reads the value under `key`; read() throws ember::Error naming an absent key and the keys
  /// there are, try_read() returns false.
  void read(const std::string& key, c10::IValue& ivalue);
  bool try_read(const std::string& key, c10::IValue& ivalue);
  /// Reads a tensor (as LibTorch, without recording autograd): into `tensor`'s own storage when
  /// it is defined with the same shape, else `tensor` becomes the loaded one (keeping its
  /// requires_grad). `is_buffer` is LibTorch's and changes nothing here.
  void read(const std::string& key, ember::Tensor& tensor, bool is_buffer = false);
  bool try_read(const std::string& key, ember::Tensor& tensor, bool is_buffer = false);
  /// Reads a nested dict as an archive.
  void read(const std::string& key, InputArchive& archive);
  bool try_read(const std::string& key, InputArchive& archive);

  void load_from(const std::string& filename, std::optional<ember::Device> device = std::nullopt);
  void load_from(std::istream& stream, std::optional<ember::Device> device = std::nullopt);
  void load_from(const char* data, size_t size, std::optional<ember::Device> device = std::nullopt);
  /// read_func(pos, buf, nbytes) copies bytes from `pos` and returns how many; size_func() the
  /// total.
  void load_from(const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
                 const std::function<size_t(void)>& size_func,
                 std::optional<ember::Device> device = std::nullopt);

  /// The keys, in the file's order (int keys as their digits).
  std::vector<std::string> keys();

  /// read(), for code shared by both archive kinds.
  template <class... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }

  /// ember: what the archive holds, and the dotted path of a nested archive (for messages).
  const ember::Dict& dict() const { return dict_; }
  const std::string& path() const { return path_; }
  /// ember: sets the content from a loaded value (see the top of this file).
  void set_value(const ember::Value& value);

 private:
  const ember::Value* find(const std::string& key) const;
  ember::Dict dict_;
  std::string path_;  // "" at the top, "model." inside archive "model"
};

}  // namespace torch::serialize
