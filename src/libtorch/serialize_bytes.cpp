// Where torch.save files go and come from: files through ember's save/load, and streams, writer
// functions and memory through a private temporary file, since ember's save/load work on paths
// only (an in-memory save/load in ember's core would remove the detour); pickle_save and
// pickle_load are the same bytes.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "ember/error.h"
#include "ember/serialize.h"
#include "torch/serialize.h"
#include "torch/serialize/input-archive.h"
#include "torch/serialize/output-archive.h"

namespace torch::serialize::detail {

namespace {

/// A fresh file of our own in the temporary directory, removed on destruction.
class TemporaryFile {
 public:
  explicit TemporaryFile(const char* op) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ember-torch-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    EMBER_CHECK(fd >= 0, op, "cannot create a temporary file in ",
                std::filesystem::temp_directory_path().string());
    close(fd);
    path_ = pattern;
  }
  ~TemporaryFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

/// The bytes of the torch.save file holding `value`.
std::string value_to_bytes(const ember::Value& value) {
  TemporaryFile file("torch::save");
  ember::save(value, file.path(), {.sync = false});
  std::ifstream in(file.path(), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  EMBER_CHECK(in.good() || in.eof(), "torch::save", "cannot read back ", file.path());
  return bytes.str();
}

namespace {

ember::LoadOptions load_options(std::optional<ember::Device> device, bool mmap) {
  ember::LoadOptions options;
  if (device) options.map_location = *device;
  // Also torch.device and bytes, which Python's checkpoints may hold; the reader never runs
  // code from the file either way.
  options.weights_only = false;
  options.mmap = mmap;
  return options;
}

}  // namespace

void save_value(const ember::Value& value, const std::string& filename) {
  ember::save(value, filename);
}

void save_value(const ember::Value& value, std::ostream& stream) {
  const std::string bytes = value_to_bytes(value);
  stream.write(bytes.data(), std::streamsize(bytes.size()));
  EMBER_CHECK(stream.good(), "torch::save", "writing ", bytes.size(),
              " bytes to the stream failed");
}

void save_value(const ember::Value& value, const std::function<size_t(const void*, size_t)>& func) {
  const std::string bytes = value_to_bytes(value);
  const size_t written = func(bytes.data(), bytes.size());
  EMBER_CHECK(written == bytes.size(), "torch::save", "the writer function took ", written, " of ",
              bytes.size(), " bytes");
}

ember::Value load_value(const std::string& filename, std::optional<ember::Device> device) {
  return ember::load(filename, load_options(device, true));
}

ember::Value load_value(const char* data, size_t size, std::optional<ember::Device> device) {
  TemporaryFile file("torch::load");
  {
    std::ofstream out(file.path(), std::ios::binary);
    out.write(data, std::streamsize(size));
    EMBER_CHECK(out.good(), "torch::load", "cannot write ", size, " bytes to ", file.path());
  }
  // Copied, not mapped: the file is removed on return.
  return ember::load(file.path(), load_options(device, false));
}

}  // namespace torch::serialize::detail

namespace torch {

std::vector<char> pickle_save(const c10::IValue& ivalue) {
  const std::string bytes = serialize::detail::value_to_bytes(ivalue);
  return {bytes.begin(), bytes.end()};
}

c10::IValue pickle_load(const std::vector<char>& data) {
  return serialize::detail::load_value(data.data(), data.size(), std::nullopt);
}

}  // namespace torch
