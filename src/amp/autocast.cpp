// amp::autocast: the per-thread state (enabled and dtype per device type, cache flag, nesting
// depth, the weight-cast cache) and the policy lookup the op-entry hook asks.
//
// Note [Autocast state]
// As PyTorch's: entering a guard saves the device's enabled flag, its dtype and the cache flag,
// sets them, and counts one nesting level; leaving restores them and, when the nesting depth
// returns to 0, clears the cache. The cache differs in one way: PyTorch keeps one process-wide
// cache under a mutex (so one thread's outermost exit clears another thread's casts); ember's is
// per thread, like the rest of the state, so threads running regions never see each other's
// casts. It maps the source TensorImpl to (the source, its cast): holding the source keeps the
// key from being reused by a new tensor while the entry lives.
#include "ember/amp/autocast.h"

#include <cstring>
#include <unordered_map>
#include <utility>

#include "amp/autocast_state.h"
#include "core/op_entry.h"
#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember::amp {
namespace {

constexpr int kDevices = 2;  // DeviceType::CPU, DeviceType::CUDA

struct CacheEntry {
  Tensor source, cast;
};

// Note [Autocast policy memo]
// The hook asks for an op's policy at every entry inside a region, so the answer is kept per
// thread under the op's identity, the address of its name (each op passes one literal), in an
// open-addressed table: a hit is one hash of the address and one comparison, no string work.
// The table is never full in practice (a few hundred op names); if it were, lookups fall back
// to the table scan, correct but slow.
class PolicyMemo {
 public:
  std::optional<CastPolicy> find(const char* op, DeviceType device) {
    const size_t mask = kSlots - 1;
    for (size_t i = hash(op), n = 0; n < kSlots; i = (i + 1) & mask, ++n) {
      Slot& s = slots_[i];
      if (s.op == op) return s.known[index(device)] ? s.policy[index(device)] : lookup(s, device);
      if (!s.op) {
        s.op = op;
        return lookup(s, device);
      }
    }
    return scan(op, device);
  }

 private:
  static constexpr size_t kSlots = 1024;  // a power of two
  struct Slot {
    const char* op = nullptr;
    bool known[2] = {false, false};
    std::optional<CastPolicy> policy[2];
  };
  static size_t index(DeviceType d) { return d == kCUDA ? 1 : 0; }
  static size_t hash(const char* op) {  // Fibonacci hashing of the address
    return size_t((uint64_t(reinterpret_cast<uintptr_t>(op)) * 0x9E3779B97F4A7C15ull) >> 54);
  }
  static std::optional<CastPolicy> lookup(Slot& s, DeviceType device) {
    s.known[index(device)] = true;
    return s.policy[index(device)] = scan(s.op, device);
  }
  static std::optional<CastPolicy> scan(const char* op, DeviceType device);
  Slot slots_[kSlots];
};

struct State {
  bool enabled[kDevices] = {false, false};
  Dtype dtype[kDevices] = {kBFloat16, kFloat16};  // PyTorch's defaults per device
  bool cache_enabled = true;
  int nesting = 0;
  int64_t casts = 0;
  const AutocastPolicy* previous_policy = nullptr;  // the thread's hook before the outermost region
  std::unordered_map<const TensorImpl*, CacheEntry> cache;
  PolicyMemo memo;
};
thread_local State t_state;

int index_of(DeviceType d) { return d == kCUDA ? 1 : 0; }

// ember op names whose PyTorch name differs (the tables use PyTorch's).
constexpr std::pair<const char*, const char*> kAliases[] = {
    {"cross_entropy", "cross_entropy_loss"},
};

std::optional<CastPolicy> PolicyMemo::scan(const char* op, DeviceType device) {
  std::string_view name = op;
  for (const auto& [ember_name, pytorch_name] : kAliases)
    if (name == ember_name) name = pytorch_name;
  return autocast_policy(device, name);
}

Dtype checked_dtype(DeviceType device, Dtype dtype) {
  EMBER_CHECK(dtype == kBFloat16 || dtype == kFloat16, "autocast",
              "expected dtype bfloat16 or float16 for ", Device(device).str(),
              " autocast, got ", dtype_name(dtype));
  return dtype;
}

}  // namespace

autocast::autocast(DeviceType device_type, Dtype dtype, AutocastOptions options)
    : device_(device_type),
      prev_enabled_(t_state.enabled[index_of(device_type)]),
      prev_dtype_(t_state.dtype[index_of(device_type)]),
      prev_cache_enabled_(t_state.cache_enabled) {
  const int i = index_of(device_type);
  t_state.dtype[i] = checked_dtype(device_type, dtype);
  t_state.enabled[i] = options.enabled;
  if (options.cache_enabled) t_state.cache_enabled = *options.cache_enabled;
  detail::enter_region();
}

autocast::autocast(DeviceType device_type, AutocastOptions options)
    : autocast(device_type, device_type == kCUDA ? kFloat16 : kBFloat16, options) {}

autocast::~autocast() {
  const int i = index_of(device_);
  detail::leave_region();
  t_state.enabled[i] = prev_enabled_;
  t_state.dtype[i] = prev_dtype_;
  t_state.cache_enabled = prev_cache_enabled_;
}

bool is_autocast_enabled(DeviceType device_type) {
  return t_state.enabled[index_of(device_type)];
}
Dtype get_autocast_dtype(DeviceType device_type) { return t_state.dtype[index_of(device_type)]; }
bool is_autocast_cache_enabled() { return t_state.cache_enabled; }
void clear_autocast_cache() { t_state.cache.clear(); }

namespace detail {

std::optional<CastPolicy> op_policy(const char* op, DeviceType device) {
  return t_state.memo.find(op, device);
}

bool eligible(const Tensor& t, DeviceType device) {
  return t.defined() && t.is_floating_point() && t.dtype() != kFloat64 &&
         t.device().type() == device;
}

Tensor cached_cast(Dtype dtype, const Tensor& t, DeviceType device) {
  if (!eligible(t, device) || t.dtype() == dtype) return t;
  const bool cacheable = dtype == t_state.dtype[index_of(device)] && t.dtype() == kFloat32 &&
                         t.requires_grad() && t.is_leaf() && !t.impl()->view_base() &&
                         t_state.cache_enabled;
  if (cacheable) {
    auto it = t_state.cache.find(t.impl());
    if (it != t_state.cache.end()) return it->second.cast;
  }
  ++t_state.casts;
  Tensor cast = t.to(dtype);
  if (cacheable) t_state.cache.emplace(t.impl(), CacheEntry{t, cast});
  return cast;
}

int64_t casts_performed() { return t_state.casts; }

}  // namespace detail

namespace {

// The op-entry scope's autocast hook (core/op_entry.h), installed in a thread while it is inside
// any region: PyTorch's table for the device when the device's autocast is on, casts through
// the weight cache.
class TablePolicy final : public AutocastPolicy {
 public:
  ember::CastPolicy policy(const char* name, Device device) const override {
    if (!t_state.enabled[index_of(device.type())]) return ember::CastPolicy::kUntouched;
    const std::optional<CastPolicy> p = detail::op_policy(name, device.type());
    if (!p) return ember::CastPolicy::kUntouched;
    switch (*p) {
      case CastPolicy::kLowerPrecision: return ember::CastPolicy::kLowerPrecision;
      case CastPolicy::kPromote: return ember::CastPolicy::kPromote;
      case CastPolicy::kBanned:
        fail(name, "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe "
                   "to autocast. Many models use a sigmoid layer right before the binary cross "
                   "entropy layer. In this case, combine the two layers using "
                   "binary_cross_entropy_with_logits or nn::BCEWithLogitsLoss, which are safe "
                   "to autocast.");
      default: return ember::CastPolicy::kFloat32;  // fp32, fp32_set_opt_dtype, fp32_append_dtype
    }
  }
  Dtype lower_precision_dtype(Device device) const override {
    return t_state.dtype[index_of(device.type())];
  }
  Tensor cast(const Tensor& input, Dtype dtype) const override {
    return detail::cached_cast(dtype, input, input.device().type());
  }
};

const TablePolicy kTablePolicy;

}  // namespace

void detail::enter_region() {
  if (t_state.nesting++ == 0) t_state.previous_policy = set_autocast_policy(&kTablePolicy);
}

void detail::leave_region() {
  if (--t_state.nesting == 0) {
    clear_autocast_cache();
    set_autocast_policy(t_state.previous_policy);
  }
}

}  // namespace ember::amp
