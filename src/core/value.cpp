// Value, Dict and StateDict: the tree that state dicts and checkpoints are made of.
#include "ember/value.h"

#include <ostream>
#include <sstream>

#include "ember/error.h"

namespace ember {

// ── StateDict ───────────────────────────────────────────────────────────
StateDict::StateDict(std::initializer_list<Item> items) {
  for (const Item& it : items) insert(it.first, it.second);
}

void StateDict::insert(const std::string& key, Tensor value) {
  for (Item& it : items_)
    if (it.first == key) {
      it.second = std::move(value);
      return;
    }
  items_.emplace_back(key, std::move(value));
}

bool StateDict::contains(const std::string& key) const {
  for (const Item& it : items_)
    if (it.first == key) return true;
  return false;
}

const Tensor& StateDict::at(const std::string& key) const {
  for (const Item& it : items_)
    if (it.first == key) return it.second;
  fail("state_dict", "no key '", key, "' in the state dict");
}

Tensor& StateDict::at(const std::string& key) {
  return const_cast<Tensor&>(static_cast<const StateDict&>(*this).at(key));
}

bool StateDict::erase(const std::string& key) {
  return std::erase_if(items_, [&](const Item& it) { return it.first == key; }) > 0;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const Item& it : items_) out.push_back(it.first);
  return out;
}

// ── Value ───────────────────────────────────────────────────────────────
Value::Value(List v) : v_(std::make_shared<List>(std::move(v))) {}
Value::Value(Tuple v) : v_(std::make_shared<Tuple>(std::move(v))) {}
Value::Value(Dict v) : v_(std::make_shared<Dict>(std::move(v))) {}
Value::Value(const StateDict& sd) {
  Dict d;
  d.set_ordered(true);  // torch.save writes a module's state_dict() as an OrderedDict
  for (const auto& [k, t] : sd) d.insert(k, t);
  v_ = std::make_shared<Dict>(std::move(d));
}

const char* Value::kind_name() const {
  static const char* const kNames[] = {"None",   "bool", "int",   "double", "string",
                                       "Tensor", "List", "Tuple", "Dict"};
  return kNames[v_.index()];
}

namespace {
[[noreturn]] void wrong_kind(const Value& v, const char* want) {
  fail("Value", "expected a ", want, " but the value is a ", v.kind_name());
}
}  // namespace

bool Value::to_bool() const {
  if (!is_bool()) wrong_kind(*this, "bool");
  return std::get<bool>(v_);
}
int64_t Value::to_int() const {
  if (!is_int()) wrong_kind(*this, "int");
  return std::get<int64_t>(v_);
}
double Value::to_double() const {
  if (is_int()) return double(std::get<int64_t>(v_));
  if (!is_double()) wrong_kind(*this, "double");
  return std::get<double>(v_);
}
const std::string& Value::to_string() const {
  if (!is_string()) wrong_kind(*this, "string");
  return std::get<std::string>(v_);
}
const Tensor& Value::to_tensor() const {
  if (!is_tensor()) wrong_kind(*this, "Tensor");
  return std::get<Tensor>(v_);
}
List& Value::to_list() const {
  if (!is_list()) wrong_kind(*this, "List");
  return *std::get<std::shared_ptr<List>>(v_);
}
Tuple& Value::to_tuple() const {
  if (!is_tuple()) wrong_kind(*this, "Tuple");
  return *std::get<std::shared_ptr<Tuple>>(v_);
}
Dict& Value::to_dict() const {
  if (!is_dict()) wrong_kind(*this, "Dict");
  return *std::get<std::shared_ptr<Dict>>(v_);
}

StateDict Value::to_state_dict() const {
  StateDict sd;
  for (const auto& [k, v] : to_dict()) {
    EMBER_CHECK(k.is_string(), "to_state_dict", "expected string keys, found a key of kind ",
                k.kind_name());
    EMBER_CHECK(v.is_tensor(), "to_state_dict", "expected tensor values, but '", k.to_string(),
                "' is a ", v.kind_name());
    sd.insert(k.to_string(), v.to_tensor());
  }
  return sd;
}

Value& Value::operator[](const std::string& key) const { return to_dict().at(key); }

Value& Value::operator[](int64_t index) const {
  if (is_dict()) return to_dict().at(index);
  std::vector<Value>& items = is_tuple() ? to_tuple().items : to_list();
  const int64_t n = int64_t(items.size());
  EMBER_CHECK(index >= -n && index < n, "Value", "index ", index,
              " is out of range for a ", kind_name(), " of size ", n);
  return items[size_t(index < 0 ? index + n : index)];
}

Value Value::clone() const {
  switch (kind()) {
    case Kind::List: {
      List out;
      for (const Value& v : to_list()) out.push_back(v.clone());
      return out;
    }
    case Kind::Tuple: {
      Tuple out;
      for (const Value& v : to_tuple().items) out.items.push_back(v.clone());
      return out;
    }
    case Kind::Dict: {
      const Dict& in = to_dict();
      Dict out;
      for (const auto& [k, v] : in) out.insert(k.clone(), v.clone());
      out.set_ordered(in.ordered());
      out.set_metadata(in.metadata().clone());
      return out;
    }
    default:
      return *this;
  }
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::None: return true;
    case Value::Kind::Bool: return a.to_bool() == b.to_bool();
    case Value::Kind::Int: return a.to_int() == b.to_int();
    case Value::Kind::Double: return a.to_double() == b.to_double();
    case Value::Kind::String: return a.to_string() == b.to_string();
    case Value::Kind::Tensor: return a.to_tensor().is_same(b.to_tensor());
    case Value::Kind::List: return a.to_list() == b.to_list();
    case Value::Kind::Tuple: return a.to_tuple().items == b.to_tuple().items;
    case Value::Kind::Dict: {
      const Dict &x = a.to_dict(), &y = b.to_dict();
      if (x.size() != y.size()) return false;
      auto i = x.begin();
      for (auto j = y.begin(); j != y.end(); ++i, ++j)
        if (!(i->first == j->first) || !(i->second == j->second)) return false;
      return true;
    }
  }
  return false;
}

std::ostream& operator<<(std::ostream& os, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None: return os << "None";
    case Value::Kind::Bool: return os << (v.to_bool() ? "True" : "False");
    case Value::Kind::Int: return os << v.to_int();
    case Value::Kind::Double: return os << v.to_double();
    case Value::Kind::String: return os << "'" << v.to_string() << "'";
    case Value::Kind::Tensor: return os << v.to_tensor();
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      const bool tuple = v.is_tuple();
      const std::vector<Value>& items = tuple ? v.to_tuple().items : v.to_list();
      os << (tuple ? "(" : "[");
      for (size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << items[i];
      return os << (tuple && items.size() == 1 ? ",)" : tuple ? ")" : "]");
    }
    case Value::Kind::Dict: {
      os << "{";
      bool first = true;
      for (const auto& [k, x] : v.to_dict()) {
        os << (first ? "" : ", ") << k << ": " << x;
        first = false;
      }
      return os << "}";
    }
  }
  return os;
}

// ── Dict ────────────────────────────────────────────────────────────────
Dict::Dict(std::initializer_list<Item> items) {
  for (const Item& it : items) insert(it.first, it.second);
}

size_t Dict::find(const Value& key) const {
  EMBER_CHECK(key.is_string() || key.is_int() || key.is_tuple() || key.is_bool() ||
                  key.is_double() || key.is_none(),
              "Dict", "a ", key.kind_name(), " cannot be a dict key");
  if (key.is_string()) {
    const auto it = string_index_.find(key.to_string());
    return it == string_index_.end() ? items_.size() : it->second;
  }
  if (key.is_int()) {
    const auto it = int_index_.find(key.to_int());
    return it == int_index_.end() ? items_.size() : it->second;
  }
  for (size_t i = 0; i < items_.size(); ++i)
    if (items_[i].first == key) return i;
  return items_.size();
}

void Dict::append(const Value& key, Value value) {
  if (key.is_string()) string_index_.emplace(key.to_string(), items_.size());
  else if (key.is_int()) int_index_.emplace(key.to_int(), items_.size());
  items_.emplace_back(key, std::move(value));
}

void Dict::insert(const Value& key, Value value) {
  const size_t i = find(key);
  if (i < items_.size()) items_[i].second = std::move(value);
  else append(key, std::move(value));
}

bool Dict::contains(const Value& key) const { return find(key) < items_.size(); }

const Value& Dict::at(const Value& key) const {
  const size_t i = find(key);
  if (i == items_.size()) {
    std::ostringstream os;
    os << key;
    fail("Dict", "no key ", os.str(), " in the dict");
  }
  return items_[i].second;
}
Value& Dict::at(const Value& key) {
  return const_cast<Value&>(static_cast<const Dict&>(*this).at(key));
}

Value& Dict::operator[](const Value& key) {
  const size_t i = find(key);
  if (i < items_.size()) return items_[i].second;
  append(key, Value());
  return items_.back().second;
}

bool Dict::erase(const Value& key) {
  const size_t i = find(key);
  if (i == items_.size()) return false;
  items_.erase(items_.begin() + long(i));
  string_index_.clear();  // positions after i moved: re-index
  int_index_.clear();
  for (size_t j = 0; j < items_.size(); ++j) {
    const Value& k = items_[j].first;
    if (k.is_string()) string_index_.emplace(k.to_string(), j);
    else if (k.is_int()) int_index_.emplace(k.to_int(), j);
  }
  return true;
}

}  // namespace ember
