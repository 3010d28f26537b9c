// Values of checkpoint trees and state dicts (PyTorch's IValue, kept small): None, bool, int,
// double, string, Tensor, and ordered containers — List, Tuple, and Dict with string or int
// keys. A module's state_dict() is a StateDict (name -> Tensor, in order).
//
//   save(Dict{{"epoch", 3}, {"model_state_dict", model->state_dict()}, {"loss", 0.25}}, "ck.pt");
//   Value ck = load("ck.pt");
//   ck["epoch"].to_int();  ck["model_state_dict"].to_state_dict();
//
// Containers are shared on copy (as Python's): copying a Value that holds a Dict gives a second
// handle on the same Dict. Use clone() for an independent copy.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// A module's parameters and persistent buffers by dotted name, in registration order.
class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  StateDict() = default;
  StateDict(std::initializer_list<Item> items);

  /// Adds `key`, or replaces its tensor in place in the order (like OrderedDict assignment).
  void insert(const std::string& key, Tensor value);
  bool contains(const std::string& key) const;
  /// Throws ember::Error naming the key when it is absent.
  const Tensor& at(const std::string& key) const;
  Tensor& at(const std::string& key);
  const Tensor& operator[](const std::string& key) const { return at(key); }
  bool erase(const std::string& key);
  std::vector<std::string> keys() const;
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
};

class Value;
class Dict;
using List = std::vector<Value>;

/// A Python tuple: an ordered, fixed list of values (kept apart from List so files round-trip).
struct Tuple {
  std::vector<Value> items;
};

class Value {
 public:
  enum class Kind { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict };

  Value() = default;  // None
  Value(std::nullptr_t) {}
  Value(bool v) : v_(v) {}
  Value(int v) : v_(int64_t(v)) {}
  Value(int64_t v) : v_(v) {}
  Value(double v) : v_(v) {}
  Value(const char* v) : v_(std::string(v)) {}
  Value(std::string v) : v_(std::move(v)) {}
  Value(Tensor v) : v_(std::move(v)) {}
  Value(List v);
  Value(Tuple v);
  Value(Dict v);
  Value(const StateDict& sd);  // a Dict of string -> Tensor

  Kind kind() const { return Kind(v_.index()); }
  /// "None", "bool", "int", "double", "string", "Tensor", "List", "Tuple", "Dict".
  const char* kind_name() const;
  bool is_none() const { return kind() == Kind::None; }
  bool is_bool() const { return kind() == Kind::Bool; }
  bool is_int() const { return kind() == Kind::Int; }
  bool is_double() const { return kind() == Kind::Double; }
  bool is_string() const { return kind() == Kind::String; }
  bool is_tensor() const { return kind() == Kind::Tensor; }
  bool is_list() const { return kind() == Kind::List; }
  bool is_tuple() const { return kind() == Kind::Tuple; }
  bool is_dict() const { return kind() == Kind::Dict; }

  // Accessors throw ember::Error naming the expected and actual kinds on a mismatch.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // ints convert, as Python's float()
  const std::string& to_string() const;
  const Tensor& to_tensor() const;
  List& to_list() const;
  Tuple& to_tuple() const;
  Dict& to_dict() const;
  /// A Dict whose keys are strings and values tensors, as a StateDict (order kept).
  StateDict to_state_dict() const;

  /// Dict lookup (throws when absent or not a dict); List/Tuple element for an int.
  Value& operator[](const std::string& key) const;
  Value& operator[](const char* key) const { return (*this)[std::string(key)]; }
  Value& operator[](int64_t index) const;
  Value& operator[](int index) const { return (*this)[int64_t(index)]; }

  /// A deep copy of the containers (tensors are shared, not copied).
  Value clone() const;

  /// Same kind and equal content (tensors: same handle).
  friend bool operator==(const Value& a, const Value& b);

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, std::shared_ptr<List>,
               std::shared_ptr<Tuple>, std::shared_ptr<Dict>>
      v_;
};

/// An ordered dictionary with string or int keys (Python dict / OrderedDict).
class Dict {
 public:
  using Item = std::pair<Value, Value>;
  Dict() = default;
  Dict(std::initializer_list<Item> items);

  /// Inserts or replaces (keeping the key's position).
  void insert(const Value& key, Value value);
  bool contains(const Value& key) const;
  /// Throws ember::Error naming the key when absent.
  Value& at(const Value& key);
  const Value& at(const Value& key) const;
  /// Inserts None for an absent key, like std::map.
  Value& operator[](const Value& key);
  bool erase(const Value& key);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

  /// A Python OrderedDict (how state dicts are pickled) rather than a plain dict. Dicts made
  /// from a StateDict are ordered; load() keeps what the file had.
  bool ordered() const { return ordered_; }
  void set_ordered(bool ordered) { ordered_ = ordered; }
  /// An OrderedDict's `_metadata` attribute: module prefix -> {"version": n}, read by
  /// PyTorch's _load_from_state_dict upgrades. None when unknown (save() then derives it).
  const Value& metadata() const { return metadata_; }
  void set_metadata(Value metadata) { metadata_ = std::move(metadata); }

 private:
  size_t find(const Value& key) const;  // items_.size() when absent
  void append(const Value& key, Value value);
  std::vector<Item> items_;
  // Positions of string and int keys, so that building a dict of n keys (a loaded checkpoint
  // may have millions) costs O(n), not O(n^2). Other key kinds are rare and searched linearly.
  std::unordered_map<std::string, size_t> string_index_;
  std::unordered_map<int64_t, size_t> int_index_;
  bool ordered_ = false;
  Value metadata_;
};

std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace ember
