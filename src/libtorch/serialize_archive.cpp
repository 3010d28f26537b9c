// LibTorch's archives on ember's values (torch/serialize/output-archive.h, input-archive.h) and
// the module operators (torch/serialize/module.h).
#include <sstream>

#include "ember/autograd.h"
#include "ember/error.h"
#include "torch/serialize/archive.h"
#include "torch/serialize/module.h"

namespace torch::serialize {

namespace {
constexpr const char* kOp = "torch::load";

std::string key_list(const ember::Dict& dict) {
  std::ostringstream os;
  bool first = true;
  for (const auto& [k, v] : dict) {
    os << (first ? "" : ", ") << (k.is_string() ? k.to_string() : std::to_string(k.to_int()));
    first = false;
  }
  return first ? std::string("none") : os.str();
}
}  // namespace

// ── OutputArchive ───────────────────────────────────────────────────────
void OutputArchive::write(const std::string& key, const c10::IValue& ivalue) {
  dict_.insert(ember::Value(key), ivalue);
}

void OutputArchive::write(const std::string& key, const ember::Tensor& tensor, bool is_buffer) {
  (void)is_buffer;
  dict_.insert(ember::Value(key), ember::Value(tensor.defined() ? tensor.detach() : tensor));
}

void OutputArchive::write(const std::string& key, OutputArchive& nested_archive) {
  dict_.insert(ember::Value(key), ember::Value(nested_archive.dict_));
}

void OutputArchive::save_to(const std::string& filename) {
  detail::save_value(ember::Value(dict_), filename);
}

void OutputArchive::save_to(std::ostream& stream) {
  detail::save_value(ember::Value(dict_), stream);
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) {
  detail::save_value(ember::Value(dict_), func);
}

// ── InputArchive ────────────────────────────────────────────────────────
void InputArchive::set_value(const ember::Value& value) {
  dict_ = ember::Dict();
  if (value.is_dict()) {
    dict_ = value.to_dict();
  } else if (value.is_list() || value.is_tuple()) {
    const std::vector<ember::Value>& items =
        value.is_list() ? value.to_list() : value.to_tuple().items;
    for (size_t i = 0; i < items.size(); ++i)
      dict_.insert(ember::Value(std::to_string(i)), items[i]);
  } else {
    dict_.insert(ember::Value("0"), value);
  }
}

const ember::Value* InputArchive::find(const std::string& key) const {
  const ember::Value k(key);
  return dict_.contains(k) ? &dict_.at(k) : nullptr;
}

bool InputArchive::try_read(const std::string& key, c10::IValue& ivalue) {
  const ember::Value* v = find(key);
  if (v) ivalue = *v;
  return v != nullptr;
}

void InputArchive::read(const std::string& key, c10::IValue& ivalue) {
  EMBER_CHECK(try_read(key, ivalue), kOp, "no value '", path_, key,
              "' in the archive (its keys: ", key_list(dict_), ")");
}

bool InputArchive::try_read(const std::string& key, ember::Tensor& tensor, bool is_buffer) {
  (void)is_buffer;
  const ember::Value* v = find(key);
  if (!v) return false;
  EMBER_CHECK(v->is_tensor(), kOp, "'", path_, key, "' is a ", v->kind_name(), ", not a tensor");
  const ember::Tensor& loaded = v->to_tensor();
  ember::NoGradGuard no_grad;
  if (tensor.defined() && tensor.sizes() == loaded.sizes()) {
    tensor.copy_(loaded);  // handles on the tensor (a module's, an optimizer's) see the values
  } else {
    const bool requires_grad = tensor.defined() && tensor.requires_grad();
    tensor = loaded.detach();
    if (requires_grad) tensor.requires_grad_(true);
  }
  return true;
}

void InputArchive::read(const std::string& key, ember::Tensor& tensor, bool is_buffer) {
  EMBER_CHECK(try_read(key, tensor, is_buffer), kOp, "no tensor '", path_, key,
              "' in the archive (its keys: ", key_list(dict_), ")");
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) {
  const ember::Value* v = find(key);
  if (!v) return false;
  EMBER_CHECK(v->is_dict(), kOp, "'", path_, key, "' is a ", v->kind_name(),
              ", not a nested archive (a dict)");
  archive.dict_ = v->to_dict();
  archive.path_ = path_ + key + ".";
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) {
  EMBER_CHECK(try_read(key, archive), kOp, "no archive '", path_, key,
              "' in the archive (its keys: ", key_list(dict_), ")");
}

void InputArchive::load_from(const std::string& filename, std::optional<ember::Device> device) {
  set_value(detail::load_value(filename, device));
  path_.clear();
}

void InputArchive::load_from(std::istream& stream, std::optional<ember::Device> device) {
  std::ostringstream bytes;
  bytes << stream.rdbuf();
  EMBER_CHECK(!stream.bad(), kOp, "reading the stream failed");
  const std::string data = bytes.str();
  load_from(data.data(), data.size(), device);
}

void InputArchive::load_from(const char* data, size_t size, std::optional<ember::Device> device) {
  set_value(detail::load_value(data, size, device));
  path_.clear();
}

void InputArchive::load_from(
    const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
    const std::function<size_t(void)>& size_func, std::optional<ember::Device> device) {
  std::string data(size_func(), '\0');
  size_t done = 0;
  while (done < data.size()) {
    const size_t n = read_func(done, data.data() + done, data.size() - done);
    EMBER_CHECK(n > 0, kOp, "the read function gave no bytes at offset ", done, " of ",
                data.size());
    done += n;
  }
  load_from(data.data(), data.size(), device);
}

std::vector<std::string> InputArchive::keys() {
  std::vector<std::string> out;
  for (const auto& [k, v] : dict_)
    out.push_back(k.is_string() ? k.to_string() : std::to_string(k.to_int()));
  return out;
}

// ── modules ─────────────────────────────────────────────────────────────
namespace detail {

void write_module(OutputArchive& archive, const ember::nn::Module& module) {
  for (const auto& [name, tensor] : module.state_dict()) archive.write(name, tensor);
  archive.dict().set_ordered(true);  // an OrderedDict, as model.state_dict()
}

void read_module(InputArchive& archive, ember::nn::Module& module) {
  const ember::StateDict mine = module.state_dict();
  // Everything is checked before anything is copied, so a failed load changes nothing.
  std::ostringstream problems;
  ember::StateDict loaded;
  for (const auto& [name, tensor] : mine) {
    const ember::Value key(name);
    if (!archive.dict().contains(key)) {
      problems << "\n  missing '" << archive.path() << name << "' (shape " << tensor.sizes()
               << " in the module)";
      continue;
    }
    const ember::Value& v = archive.dict().at(key);
    if (!v.is_tensor()) {
      problems << "\n  '" << archive.path() << name << "' is a " << v.kind_name()
               << " in the file, not a tensor";
      continue;
    }
    const ember::Tensor& t = v.to_tensor();
    if (t.sizes() != tensor.sizes()) {
      problems << "\n  '" << archive.path() << name << "' has shape " << t.sizes()
               << " in the file but " << tensor.sizes() << " in the module";
      continue;
    }
    loaded.insert(name, t);
  }
  const std::string message = problems.str();
  EMBER_CHECK(message.empty(), kOp, "cannot load ", module.name(), ":", message,
              "\n(the file's keys: ", key_list(archive.dict()), ")");
  module.load_state_dict(loaded);
}

}  // namespace detail
}  // namespace torch::serialize
