// The (name, value) lists Module returns (named_parameters, named_buffers, named_children,
// named_modules): vectors of pairs, read as ember writes them — `for (auto& [name, p] : ...)`,
// `.first`, `.second` — and as LibTorch's OrderedDict — `item.key()`, `item.value()`,
// `list["fc.weight"]`, `keys()`, `values()`, `contains`, `find`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::nn {

template <class V>
struct NamedItem : std::pair<std::string, V> {
  using std::pair<std::string, V>::pair;
  const std::string& key() const { return this->first; }
  V& value() { return this->second; }
  const V& value() const { return this->second; }
};

template <class V>
class NamedList : public std::vector<NamedItem<V>> {
  using Base = std::vector<NamedItem<V>>;

 public:
  using Base::Base;
  using Base::operator[];

  /// The value named `key`, or nullptr (LibTorch's OrderedDict::find).
  V* find(const std::string& key) {
    for (auto& item : *this)
      if (item.first == key) return &item.second;
    return nullptr;
  }
  const V* find(const std::string& key) const { return const_cast<NamedList*>(this)->find(key); }
  bool contains(const std::string& key) const { return find(key) != nullptr; }
  /// The value named `key`; an ember::Error naming it when there is none.
  V& operator[](const std::string& key) {
    V* value = find(key);
    if (!value) fail("named list", "no entry named '", key, "'");
    return *value;
  }
  const V& operator[](const std::string& key) const { return (*const_cast<NamedList*>(this))[key]; }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& item : *this) out.push_back(item.first);
    return out;
  }
  std::vector<V> values() const {
    std::vector<V> out;
    for (const auto& item : *this) out.push_back(item.second);
    return out;
  }
  bool is_empty() const { return this->empty(); }
};

}  // namespace ember::nn
