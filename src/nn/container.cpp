// Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict.
#include "ember/nn/layers/container.h"

#include <sstream>

namespace ember::nn {

namespace {
int64_t wrap_index(int64_t index, size_t size, const char* op) {
  const int64_t n = int64_t(size);
  EMBER_CHECK(index >= -n && index < n, op, "index ", index, " is out of range for ", n,
              " modules");
  return index < 0 ? index + n : index;
}

// ParameterList/Dict repr lines, as PyTorch: "(0): Parameter containing: [torch.float32 of size 3x4]".
std::string parameter_line(const std::string& key, const Tensor& p) {
  std::ostringstream os;
  os << "(" << key << "): Parameter containing: [torch." << p.dtype() << " of size ";
  for (int64_t d = 0; d < p.dim(); ++d) os << (d ? "x" : "") << p.size(d);
  os << "]";
  return os.str();
}
}  // namespace

void SequentialImpl::add(std::shared_ptr<Module> module, std::function<Tensor(const Tensor&)> fn) {
  register_module(std::to_string(steps_.size()), module);
  steps_.emplace_back(std::move(module), std::move(fn));
}

Tensor SequentialImpl::forward(const Tensor& input) {
  Tensor x = input;
  for (auto& [module, fn] : steps_) x = fn(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::operator[](int64_t index) const {
  return steps_[size_t(wrap_index(index, steps_.size(), "Sequential"))].first;
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> ModuleListImpl::operator[](int64_t index) const {
  return modules_[size_t(wrap_index(index, modules_.size(), "ModuleList"))];
}

void ModuleDictImpl::insert(const std::string& key, std::shared_ptr<Module> module) {
  register_module(key, std::move(module));
}

bool ModuleDictImpl::contains(const std::string& key) const {
  for (auto& [n, m] : named_children())
    if (n == key) return true;
  return false;
}

std::shared_ptr<Module> ModuleDictImpl::operator[](const std::string& key) const {
  for (auto& [n, m] : named_children())
    if (n == key) return m;
  fail("ModuleDict", "no module named '", key, "'");
}

Tensor ParameterListImpl::append(Tensor parameter) {
  Tensor p = register_parameter(std::to_string(items_.size()), std::move(parameter));
  items_.push_back(p);
  return p;
}

const Tensor& ParameterListImpl::operator[](int64_t index) const {
  return items_[size_t(wrap_index(index, items_.size(), "ParameterList"))];
}

std::string ParameterListImpl::extra_repr() const {
  std::string out;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i) out += '\n';
    out += parameter_line(std::to_string(i), items_[i]);
  }
  return out;
}

Tensor ParameterDictImpl::insert(const std::string& key, Tensor parameter) {
  return register_parameter(key, std::move(parameter));
}

Tensor ParameterDictImpl::operator[](const std::string& key) const {
  for (auto& [n, p] : named_parameters(false))
    if (n == key) return p;
  fail("ParameterDict", "no parameter named '", key, "'");
}

std::string ParameterDictImpl::extra_repr() const {
  std::string out;
  for (auto& [n, p] : named_parameters(false)) {
    if (!out.empty()) out += '\n';
    out += parameter_line(n, p);
  }
  return out;
}

}  // namespace ember::nn
