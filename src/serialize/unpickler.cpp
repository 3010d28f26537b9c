// The allowlist unpickler for data.pkl.
//
// Note [Allowlist unpickler]
// Python's pickle is a stack machine whose GLOBAL + REDUCE opcodes call any importable function
// (os.system, builtins.eval, ...), so a checkpoint is a program. This reader is not: it knows
// the globals a weights-only checkpoint needs (collections.OrderedDict, the tensor and parameter
// rebuild functions, torch.<T>Storage, torch.Size; with weights_only=false also torch.device and
// _codecs.encode) and implements each one itself. Any other global, REDUCE target or opcode is an
// ember::Error naming it. Every read is bounds-checked, memo indices go to a map (a huge index
// allocates nothing), a storage's size comes from its record (checked by the caller) and a
// tensor's view must lie inside its storage. The finished tree is checked for cycles and depth
// (a container appended to itself would otherwise hang the printers and overflow destructors).
#include <cstring>
#include <unordered_map>
#include <vector>

#include "ember/error.h"
#include "ember/tensor.h"
#include "serialize/pickle.h"
#include "serialize/pickle_input.h"

namespace ember::serialize {
namespace {

constexpr const char* kLoad = "load";
constexpr size_t kMaxDepth = 512;  // nesting of containers (the Value printers recurse)
constexpr int64_t kMaxDims = 64;

enum class Global {
  OrderedDict, RebuildTensorV2, RebuildTensor, RebuildParameter, Size, Storage, Device, Encode,
};

struct GlobalInfo {
  const char* module;
  const char* name;
  Global global;
  Dtype dtype;        // for the storage classes
  bool weights_only;  // allowed when weights_only is set
};

constexpr GlobalInfo kGlobals[] = {
    {"collections", "OrderedDict", Global::OrderedDict, kFloat32, true},
    {"torch._utils", "_rebuild_tensor_v2", Global::RebuildTensorV2, kFloat32, true},
    {"torch._utils", "_rebuild_tensor", Global::RebuildTensor, kFloat32, true},
    {"torch._utils", "_rebuild_parameter", Global::RebuildParameter, kFloat32, true},
    {"torch", "Size", Global::Size, kFloat32, true},
    {"torch", "BoolStorage", Global::Storage, kBool, true},
    {"torch", "ByteStorage", Global::Storage, kUInt8, true},
    {"torch", "CharStorage", Global::Storage, kInt8, true},
    {"torch", "ShortStorage", Global::Storage, kInt16, true},
    {"torch", "IntStorage", Global::Storage, kInt32, true},
    {"torch", "LongStorage", Global::Storage, kInt64, true},
    {"torch", "HalfStorage", Global::Storage, kFloat16, true},
    {"torch", "BFloat16Storage", Global::Storage, kBFloat16, true},
    {"torch", "FloatStorage", Global::Storage, kFloat32, true},
    {"torch", "DoubleStorage", Global::Storage, kFloat64, true},
    {"torch", "device", Global::Device, kFloat32, false},
    {"_codecs", "encode", Global::Encode, kFloat32, false},
};

// One stack slot: a Value, or something only the unpickler sees (a mark, a global, a storage,
// a tuple holding those — the arguments of a rebuild call).
struct Item {
  enum Tag : uint8_t { kValue, kMarkItem, kGlobalItem, kStorageItem, kRawTuple } tag = kValue;
  Value value;
  const GlobalInfo* global = nullptr;
  Storage storage;
  Dtype dtype = kFloat32;
  Device device;
  std::shared_ptr<std::vector<Item>> tuple;

  static Item of(Value v) {
    Item it;
    it.value = std::move(v);
    return it;
  }
  const char* describe() const {
    switch (tag) {
      case kValue: return value.kind_name();
      case kMarkItem: return "MARK";
      case kGlobalItem: return "global";
      case kStorageItem: return "storage";
      case kRawTuple: return "tuple of storages/globals";
    }
    return "?";
  }
};

class Unpickler : private PickleInput {
 public:
  Unpickler(std::string_view data, const UnpickleOptions& options)
      : PickleInput(data), options_(options) {}
  ~Unpickler() {
    // Break any reference cycle a hostile file built, one container at a time (no recursion).
    if (!done_)
      for (Value& c : containers_) clear(c);
  }

  Value run();

 private:
  [[noreturn]] void bad(const std::string& what) const override {
    fail(kLoad, "data.pkl at byte ", pos_, ": ", what);
  }

  Item pop() {
    if (stack_.size() <= floor()) bad("pops an empty stack");
    Item it = std::move(stack_.back());
    stack_.pop_back();
    return it;
  }
  Item& top() {
    if (stack_.size() <= floor()) bad("reads an empty stack");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<Item> pop_mark() {
    if (marks_.empty()) bad("has no MARK to pop to");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Item> items(std::make_move_iterator(stack_.begin() + long(m)),
                            std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return items;
  }
  Value value_of(Item it, const char* where) {
    if (it.tag != Item::kValue) bad(std::string("puts a ") + it.describe() + " in a " + where);
    return std::move(it.value);
  }
  Value container(Value v) {
    containers_.push_back(v);
    return v;
  }
  static void clear(Value& v) {
    if (v.is_list()) v.to_list().clear();
    else if (v.is_tuple()) v.to_tuple().items.clear();
    else if (v.is_dict()) v.to_dict() = Dict();
  }

  Item make_tuple(std::vector<Item> items);
  void set_items(std::vector<Item> kv);
  void append_items(std::vector<Item> items);
  Item reduce(const GlobalInfo& g, Item args);
  Item persistent_load(Item pid);
  Value rebuild_tensor(std::vector<Item>& a, bool v2);
  void check_tree(const Value& root) const;

  const UnpickleOptions& options_;
  std::vector<Item> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, Item> memo_;
  std::vector<Value> containers_;
  bool done_ = false;
};

Item Unpickler::make_tuple(std::vector<Item> items) {
  bool plain = true;
  for (const Item& it : items) plain = plain && it.tag == Item::kValue;
  if (plain) {
    Tuple t;
    t.items.reserve(items.size());
    for (Item& it : items) t.items.push_back(std::move(it.value));
    return Item::of(container(Value(std::move(t))));
  }
  for (const Item& it : items)
    if (it.tag == Item::kMarkItem) bad("puts a MARK in a tuple");
  Item it;
  it.tag = Item::kRawTuple;
  it.tuple = std::make_shared<std::vector<Item>>(std::move(items));
  return it;
}

void Unpickler::set_items(std::vector<Item> kv) {
  if (kv.size() % 2) bad("SETITEMS has an odd number of items");
  Item& target = top();
  if (target.tag != Item::kValue || !target.value.is_dict())
    bad(std::string("SETITEM(S) on a ") + target.describe() + ", not a dict");
  Dict& d = target.value.to_dict();
  for (size_t i = 0; i < kv.size(); i += 2) {
    Value key = value_of(std::move(kv[i]), "dict key");
    if (!key.is_string() && !key.is_int() && !key.is_bool() && !key.is_none() &&
        !key.is_double())
      bad(std::string("uses a ") + key.kind_name() + " as a dict key");
    d.insert(key, value_of(std::move(kv[i + 1]), "dict"));
  }
}

void Unpickler::append_items(std::vector<Item> items) {
  Item& target = top();
  if (target.tag != Item::kValue || !target.value.is_list())
    bad(std::string("APPEND(S) on a ") + target.describe() + ", not a list");
  List& l = target.value.to_list();
  for (Item& it : items) l.push_back(value_of(std::move(it), "list"));
}

int64_t int_arg(const Item& it, const char* what, const char* fn) {
  if (it.tag != Item::kValue || !it.value.is_int())
    fail(kLoad, fn, ": ", what, " must be an int, got a ", it.describe());
  return it.value.to_int();
}

std::vector<int64_t> int_tuple_arg(const Item& it, const char* what, const char* fn) {
  if (it.tag != Item::kValue || !it.value.is_tuple())
    fail(kLoad, fn, ": ", what, " must be a tuple, got a ", it.describe());
  std::vector<int64_t> out;
  for (const Value& v : it.value.to_tuple().items) {
    if (!v.is_int()) fail(kLoad, fn, ": ", what, " holds a ", v.kind_name(), ", not an int");
    out.push_back(v.to_int());
  }
  return out;
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks
// [, metadata]) and the older _rebuild_tensor(storage, storage_offset, size, stride).
Value Unpickler::rebuild_tensor(std::vector<Item>& a, bool v2) {
  const char* fn = v2 ? "_rebuild_tensor_v2" : "_rebuild_tensor";
  if (v2 ? (a.size() != 6 && a.size() != 7) : a.size() != 4)
    fail(kLoad, fn, ": expected ", v2 ? "6 or 7" : "4", " arguments, got ", a.size());
  if (a[0].tag != Item::kStorageItem)
    fail(kLoad, fn, ": the first argument must be a storage, got a ", a[0].describe());
  const Storage& storage = a[0].storage;
  const Dtype dtype = a[0].dtype;
  const int64_t offset = int_arg(a[1], "storage_offset", fn);
  const std::vector<int64_t> sizes = int_tuple_arg(a[2], "size", fn);
  const std::vector<int64_t> strides = int_tuple_arg(a[3], "stride", fn);
  bool requires_grad = false;
  if (v2) {
    if (a[4].tag != Item::kValue || !a[4].value.is_bool())
      fail(kLoad, fn, ": requires_grad must be a bool, got a ", a[4].describe());
    requires_grad = a[4].value.to_bool();
  }
  if (sizes.size() != strides.size())
    fail(kLoad, fn, ": size has ", sizes.size(), " dims but stride has ", strides.size());
  if (int64_t(sizes.size()) > kMaxDims) fail(kLoad, fn, ": ", sizes.size(), " dims is too many");
  // The view must lie inside the storage: offset + sum((size - 1) * stride) < numel.
  const int64_t storage_numel = int64_t(storage->nbytes() / size_t(itemsize(dtype)));
  int64_t numel = 1, last = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0)
      fail(kLoad, fn, ": negative size or stride (size ", sizes[d], ", stride ", strides[d], ")");
    if (__builtin_mul_overflow(numel, sizes[d], &numel)) fail(kLoad, fn, ": numel overflows");
  }
  for (size_t d = 0; d < sizes.size() && numel > 0; ++d) {
    int64_t reach;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &reach) ||
        __builtin_add_overflow(last, reach, &last))
      fail(kLoad, fn, ": the view's extent overflows");
  }
  if (offset < 0 || (numel > 0 ? last >= storage_numel : offset > storage_numel))
    fail(kLoad, fn, ": a view with offset ", offset, ", size ", IntArrayRef(sizes), " and stride ",
         IntArrayRef(strides), " reaches outside its storage of ", storage_numel, " elements");
  Tensor t(make_intrusive<TensorImpl>(storage, dtype, sizes, strides, offset));
  if (!(a[0].device == Device(kCPU))) t = t.to(a[0].device);
  if (requires_grad) {
    if (!is_floating_point(dtype)) fail(kLoad, fn, ": requires_grad on a ", dtype, " tensor");
    t.requires_grad_(true);
  }
  return Value(std::move(t));
}

Item Unpickler::reduce(const GlobalInfo& g, Item args) {
  std::vector<Item> a;
  if (args.tag == Item::kRawTuple) a = *args.tuple;
  else if (args.tag == Item::kValue && args.value.is_tuple())
    for (const Value& v : args.value.to_tuple().items) a.push_back(Item::of(v));
  else fail(kLoad, "REDUCE of ", g.module, ".", g.name, ": arguments must be a tuple");
  switch (g.global) {
    case Global::OrderedDict: {
      if (!a.empty()) fail(kLoad, "collections.OrderedDict: expected no arguments");
      Dict d;
      d.set_ordered(true);
      return Item::of(container(Value(std::move(d))));
    }
    case Global::RebuildTensorV2: return Item::of(rebuild_tensor(a, true));
    case Global::RebuildTensor: return Item::of(rebuild_tensor(a, false));
    case Global::RebuildParameter: {
      // _rebuild_parameter(data, requires_grad, backward_hooks): an nn.Parameter.
      if (a.size() != 3 || a[0].tag != Item::kValue || !a[0].value.is_tensor() ||
          a[1].tag != Item::kValue || !a[1].value.is_bool())
        fail(kLoad, "_rebuild_parameter: expected (tensor, bool, hooks)");
      Tensor t = a[0].value.to_tensor();
      if (a[1].value.to_bool()) t.requires_grad_(true);
      return Item::of(Value(t));
    }
    case Global::Size: {
      // torch.Size((2, 3)) is a tuple of ints.
      if (a.size() != 1) fail(kLoad, "torch.Size: expected one tuple argument");
      Tuple t;
      for (int64_t s : int_tuple_arg(a[0], "the sizes", "torch.Size")) t.items.push_back(s);
      return Item::of(container(Value(std::move(t))));
    }
    case Global::Device: {
      // torch.device('cuda', 0) or torch.device('cuda:0'): kept as its string.
      if (a.empty() || a.size() > 2 || a[0].tag != Item::kValue || !a[0].value.is_string())
        fail(kLoad, "torch.device: expected (type[, index])");
      std::string s = a[0].value.to_string();
      if (a.size() == 2) s += ":" + std::to_string(int_arg(a[1], "index", "torch.device"));
      return Item::of(Value(Device(s).str()));
    }
    case Global::Encode: {
      // _codecs.encode(text, 'latin1') is how protocol 2 pickles bytes: code points < 256.
      if (a.size() != 2 || a[0].tag != Item::kValue || !a[0].value.is_string() ||
          a[1].tag != Item::kValue || !a[1].value.is_string() ||
          (a[1].value.to_string() != "latin1" && a[1].value.to_string() != "latin-1"))
        fail(kLoad, "_codecs.encode: expected (str, 'latin1')");
      const std::string& s = a[0].value.to_string();
      std::string out;
      for (size_t i = 0; i < s.size(); ++i) {
        const auto c = uint8_t(s[i]);
        if (c < 0x80) out.push_back(char(c));
        else if ((c == 0xC2 || c == 0xC3) && i + 1 < s.size())
          out.push_back(char(((c & 0x03) << 6) | (uint8_t(s[++i]) & 0x3F)));
        else fail(kLoad, "_codecs.encode: a code point above 255 is not latin1");
      }
      return Item::of(Value(std::move(out)));
    }
    case Global::Storage:
      fail(kLoad, "REDUCE of ", g.module, ".", g.name,
           " is not allowed (storages are persistent ids)");
  }
  fail(kLoad, "unreachable");
}

// BINPERSID ('storage', torch.<T>Storage, key, location, numel): a storage record.
Item Unpickler::persistent_load(Item pid) {
  if (pid.tag != Item::kRawTuple || pid.tuple->size() != 5)
    bad("a persistent id must be ('storage', class, key, location, numel)");
  auto& t = *pid.tuple;
  if (t[0].tag != Item::kValue || !t[0].value.is_string() || t[0].value.to_string() != "storage")
    bad("only persistent ids of storages are allowed");
  if (t[1].tag != Item::kGlobalItem || t[1].global->global != Global::Storage)
    bad(std::string("a storage's class must be a torch.<T>Storage, got a ") + t[1].describe());
  if (t[2].tag != Item::kValue || !t[2].value.is_string() || t[3].tag != Item::kValue ||
      !t[3].value.is_string())
    bad("a storage's key and location must be strings");
  StorageRef ref{t[2].value.to_string(), t[1].global->dtype, t[3].value.to_string(),
                 int_arg(t[4], "numel", "storage")};
  if (ref.numel < 0) bad("a storage has a negative size");
  Item it;
  it.tag = Item::kStorageItem;
  it.storage = options_.load_storage(ref);
  it.dtype = ref.dtype;
  it.device = options_.device_of ? options_.device_of(ref.location) : Device(kCPU);
  return it;
}

Value Unpickler::run() {
  while (true) {
    const size_t at = pos_;
    const auto op = uint8_t(*read(1));
    switch (op) {
      case kProto: {
        const auto v = uint8_t(*read(1));
        if (v > 5) bad("unknown pickle protocol " + std::to_string(v));
        break;
      }
      case kFrame: read(8); break;  // protocol 4 framing: the bytes follow inline
      case kStop: {
        if (!marks_.empty() || stack_.size() != 1) bad("STOP with a malformed stack");
        Value out = value_of(pop(), "result");
        check_tree(out);
        done_ = true;
        return out;
      }
      case kMark:
        marks_.push_back(stack_.size());
        break;
      case kPop: pop(); break;
      case kPopMark: pop_mark(); break;
      case kNone: stack_.push_back(Item::of(Value())); break;
      case kNewTrue: stack_.push_back(Item::of(Value(true))); break;
      case kNewFalse: stack_.push_back(Item::of(Value(false))); break;
      case kBinInt: stack_.push_back(Item::of(int64_t(int32_t(read_le(4))))); break;
      case kBinInt1: stack_.push_back(Item::of(int64_t(read_le(1)))); break;
      case kBinInt2: stack_.push_back(Item::of(int64_t(read_le(2)))); break;
      case kLong1: {
        const auto n = uint8_t(*read(1));
        if (n > 8) bad("LONG1 of " + std::to_string(n) + " bytes does not fit in int64");
        uint64_t v = n ? read_le(n) : 0;
        if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
        stack_.push_back(Item::of(int64_t(v)));
        break;
      }
      case kBinFloat: {
        const auto* p = reinterpret_cast<const uint8_t*>(read(8));
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
        double d;
        std::memcpy(&d, &bits, 8);
        stack_.push_back(Item::of(d));
        break;
      }
      case kBinUnicode:
      case kShortBinUnicode:
      case kBinString:
      case kShortBinString: {
        const size_t n = op == kBinUnicode || op == kBinString ? read_le(4) : read_le(1);
        const char* p = read(n);
        stack_.push_back(Item::of(std::string(p, n)));
        break;
      }
      case kEmptyTuple: stack_.push_back(Item::of(container(Value(Tuple{})))); break;
      case kEmptyList: stack_.push_back(Item::of(container(Value(List{})))); break;
      case kEmptyDict: stack_.push_back(Item::of(container(Value(Dict{})))); break;
      case kTuple: stack_.push_back(make_tuple(pop_mark())); break;
      case kTuple1:
      case kTuple2:
      case kTuple3: {
        const size_t n = op - kTuple1 + 1;
        if (stack_.size() < floor() + n) bad("TUPLE" + std::to_string(n) + " on a short stack");
        std::vector<Item> items(std::make_move_iterator(stack_.end() - long(n)),
                                std::make_move_iterator(stack_.end()));
        stack_.resize(stack_.size() - n);
        stack_.push_back(make_tuple(std::move(items)));
        break;
      }
      case kAppend: {
        std::vector<Item> one;
        one.push_back(pop());
        append_items(std::move(one));
        break;
      }
      case kAppends: append_items(pop_mark()); break;
      case kSetItem: {
        std::vector<Item> kv(2);
        kv[1] = pop();
        kv[0] = pop();
        set_items(std::move(kv));
        break;
      }
      case kSetItems: set_items(pop_mark()); break;
      case kBinPut:
      case kLongBinPut:
        memo_[uint32_t(read_le(op == kBinPut ? 1 : 4))] = top();
        break;
      case kMemoize: memo_[uint32_t(memo_.size())] = top(); break;
      case kBinGet:
      case kLongBinGet: {
        const auto index = uint32_t(read_le(op == kBinGet ? 1 : 4));
        const auto it = memo_.find(index);
        if (it == memo_.end()) bad("BINGET of memo entry " + std::to_string(index) + " never put");
        stack_.push_back(it->second);
        break;
      }
      case kGlobal: {
        const std::string module = read_line(), name = read_line();
        const GlobalInfo* found = nullptr;
        for (const GlobalInfo& g : kGlobals)
          if (module == g.module && name == g.name) found = &g;
        if (!found || (options_.weights_only && !found->weights_only))
          fail(kLoad, "data.pkl uses the global ", module, ".", name, ", which ",
               found ? "weights_only=true does not allow" : "is not allowed in a checkpoint",
               " (ember never runs code from a file)");
        Item it;
        it.tag = Item::kGlobalItem;
        it.global = found;
        stack_.push_back(std::move(it));
        break;
      }
      case kReduce: {
        Item args = pop();
        Item fn = pop();
        if (fn.tag != Item::kGlobalItem) bad(std::string("REDUCE calls a ") + fn.describe());
        stack_.push_back(reduce(*fn.global, std::move(args)));
        break;
      }
      case kBinPersId: stack_.push_back(persistent_load(pop())); break;
      case kBuild: {
        // Only an OrderedDict's state, {'_metadata': ...}, as state dicts have.
        Value state = value_of(pop(), "BUILD state");
        Item& inst = top();
        if (inst.tag != Item::kValue || !inst.value.is_dict() || !inst.value.to_dict().ordered())
          bad(std::string("BUILD on a ") + inst.describe() + " (only OrderedDict state is allowed)");
        if (!state.is_dict()) bad("BUILD state of an OrderedDict must be a dict");
        for (const auto& [k, v] : state.to_dict()) {
          if (!k.is_string() || k.to_string() != "_metadata")
            bad("BUILD sets an OrderedDict attribute other than _metadata");
          inst.value.to_dict().set_metadata(v);
        }
        break;
      }
      default:
        pos_ = at;
        bad(std::string("opcode ") + opcode_name(op) + " (0x" +
            "0123456789abcdef"[op >> 4] + "0123456789abcdef"[op & 15] + ") is not allowed");
    }
  }
}

// Rejects cycles and nesting deeper than kMaxDepth, by an explicit-stack DFS (a hostile file
// may nest a million lists; recursion would overflow the stack doing this very check).
void Unpickler::check_tree(const Value& root) const {
  auto child_count = [](const Value& v) -> size_t {
    if (v.is_list()) return v.to_list().size();
    if (v.is_tuple()) return v.to_tuple().items.size();
    if (v.is_dict()) return 2 * v.to_dict().size() + 1;
    return 0;
  };
  auto child = [](const Value& v, size_t i) -> const Value& {
    if (v.is_list()) return v.to_list()[i];
    if (v.is_tuple()) return v.to_tuple().items[i];
    const Dict& d = v.to_dict();
    if (i == 2 * d.size()) return d.metadata();
    const auto& kv = *(d.begin() + long(i / 2));
    return i % 2 ? kv.second : kv.first;
  };
  auto id = [](const Value& v) -> const void* {
    if (v.is_list()) return &v.to_list();
    if (v.is_tuple()) return &v.to_tuple();
    return &v.to_dict();
  };
  struct Frame {
    const Value* v;
    size_t next;
    size_t height;  // of the deepest child seen so far
  };
  std::unordered_map<const void*, size_t> height;  // finished containers; 0 = on the path
  std::vector<Frame> path;
  if (child_count(root) == 0 && !root.is_dict()) return;
  path.push_back({&root, 0, 0});
  height[id(root)] = 0;
  while (!path.empty()) {
    Frame& f = path.back();
    if (f.next == child_count(*f.v)) {
      const size_t h = f.height + 1;
      height[id(*f.v)] = h;
      path.pop_back();
      if (!path.empty()) path.back().height = std::max(path.back().height, h);
      continue;
    }
    const Value& c = child(*f.v, f.next++);
    if (!c.is_list() && !c.is_tuple() && !c.is_dict()) continue;
    const auto it = height.find(id(c));
    if (it != height.end()) {
      if (it->second == 0) fail(kLoad, "data.pkl builds a container that contains itself");
      if (path.size() + it->second > kMaxDepth)
        fail(kLoad, "data.pkl nests deeper than ", kMaxDepth);
      f.height = std::max(f.height, it->second);
      continue;
    }
    if (path.size() >= kMaxDepth) fail(kLoad, "data.pkl nests containers deeper than ", kMaxDepth);
    height[id(c)] = 0;
    path.push_back({&c, 0, 0});
  }
}

}  // namespace

Value unpickle(std::string_view data, const UnpickleOptions& options) {
  Unpickler u(data, options);
  return u.run();
}

}  // namespace ember::serialize
