// The stores' shared semantics (store_detail.h), HashStore and PrefixStore.
#include "ember/distributed/store.h"

#include <condition_variable>
#include <mutex>

#include "distributed/store_detail.h"
#include "ember/error.h"

namespace ember::dist {
namespace detail {

std::string quoted_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", '" : "'") + keys[i] + "'";
  return out;
}

std::string format_duration(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

void throw_wait_timeout(const char* op, const std::vector<std::string>& keys,
                        std::chrono::milliseconds timeout, const std::string& where) {
  fail(op, "timed out after ", format_duration(timeout), " waiting for key(s) ",
       quoted_keys(keys), where);
}

bool KeyValueMap::has_all(const std::vector<std::string>& keys) const {
  for (const auto& key : keys)
    if (!values.count(key)) return false;
  return true;
}

std::vector<std::string> KeyValueMap::missing(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  for (const auto& key : keys)
    if (!values.count(key)) out.push_back(key);
  return out;
}

int64_t KeyValueMap::add(const char* op, const std::string& key, int64_t delta) {
  int64_t current = 0;
  if (auto it = values.find(key); it != values.end()) {
    size_t used = 0;
    try {
      current = std::stoll(it->second, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EMBER_CHECK(used == it->second.size() && !it->second.empty(), op, "key '", key,
                "' holds '", it->second, "', which is not an integer");
  }
  current += delta;
  values[key] = std::to_string(current);
  return current;
}

std::string KeyValueMap::compare_set(const std::string& key, const std::string& expected,
                                     const std::string& desired) {
  auto it = values.find(key);
  if (it == values.end()) {
    if (!expected.empty()) return expected;
    values[key] = desired;
    return desired;
  }
  if (it->second == expected) it->second = desired;
  return it->second;
}

}  // namespace detail

// ── HashStore ────────────────────────────────────────────────────────────────────────────────

struct HashStore::State {
  std::mutex mutex;
  std::condition_variable changed;
  detail::KeyValueMap map;
};

HashStore::HashStore(std::chrono::milliseconds timeout)
    : Store(timeout), state_(std::make_unique<State>()) {}
HashStore::~HashStore() = default;

void HashStore::set(const std::string& key, const std::string& value) {
  {
    std::lock_guard lock(state_->mutex);
    state_->map.values[key] = value;
  }
  state_->changed.notify_all();
}

std::string HashStore::get(const std::string& key) {
  wait_for({key}, timeout());
  std::lock_guard lock(state_->mutex);
  return state_->map.values.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t delta) {
  int64_t result;
  {
    std::lock_guard lock(state_->mutex);
    result = state_->map.add("HashStore.add", key, delta);
  }
  state_->changed.notify_all();
  return result;
}

std::string HashStore::compare_set(const std::string& key, const std::string& expected,
                                   const std::string& desired) {
  std::string result;
  {
    std::lock_guard lock(state_->mutex);
    result = state_->map.compare_set(key, expected, desired);
  }
  state_->changed.notify_all();
  return result;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(state_->mutex);
  return state_->map.has_all(keys);
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  return state_->map.values.erase(key) > 0;
}

int64_t HashStore::num_keys() {
  std::lock_guard lock(state_->mutex);
  return static_cast<int64_t>(state_->map.values.size());
}

void HashStore::wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::unique_lock lock(state_->mutex);
  if (!state_->changed.wait_for(lock, timeout, [&] { return state_->map.has_all(keys); }))
    detail::throw_wait_timeout("HashStore.wait", state_->map.missing(keys), timeout, "");
}

// ── PrefixStore ──────────────────────────────────────────────────────────────────────────────

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> base)
    : Store(base ? base->timeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      base_(std::move(base)) {
  EMBER_CHECK(base_ != nullptr, "PrefixStore", "needs a base store, got none");
}

std::string PrefixStore::prefixed(const std::string& key) const { return prefix_ + "/" + key; }

std::vector<std::string> PrefixStore::prefixed(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& key : keys) out.push_back(prefixed(key));
  return out;
}

void PrefixStore::set(const std::string& key, const std::string& value) {
  base_->set(prefixed(key), value);
}
std::string PrefixStore::get(const std::string& key) {
  // Waits with this store's timeout, which may differ from the base's.
  base_->wait({prefixed(key)}, timeout());
  return base_->get(prefixed(key));
}
int64_t PrefixStore::add(const std::string& key, int64_t delta) {
  return base_->add(prefixed(key), delta);
}
std::string PrefixStore::compare_set(const std::string& key, const std::string& expected,
                                     const std::string& desired) {
  return base_->compare_set(prefixed(key), expected, desired);
}
bool PrefixStore::check(const std::vector<std::string>& keys) {
  return base_->check(prefixed(keys));
}
bool PrefixStore::delete_key(const std::string& key) { return base_->delete_key(prefixed(key)); }
int64_t PrefixStore::num_keys() { return base_->num_keys(); }
void PrefixStore::wait_for(const std::vector<std::string>& keys,
                           std::chrono::milliseconds timeout) {
  base_->wait(prefixed(keys), timeout);
}

}  // namespace ember::dist
