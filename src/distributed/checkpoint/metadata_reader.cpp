// Reads `.metadata` without Python: a small stack machine for the pickle opcodes of protocols
// 2 to 4 that builds plain objects, then a reader of the Metadata record shapes.
//
// Note [Allowlist of the metadata pickle]
// PyTorch's loader unpickles `.metadata` with pickle.load, which imports and calls whatever the
// file names. This reader knows the record classes of pytorch-1.13-facts.md §1.3 (under 1.13's
// module paths and 2.x's torch.distributed.checkpoint ones), torch.Size, torch.<dtype>,
// torch.serialization._get_layout, builtins.getattr and MEM_FORMAT_ENCODING. NEWOBJ only
// instantiates a record class (as a bag of fields), REDUCE only evaluates the three allowed
// callables on the argument shapes they have in these files, and any other global, call or
// opcode is an ember::Error naming it. Nesting is bounded, so a hostile file cannot exhaust
// the stack through recursion in the destructors or the reader.
#include <cstring>
#include <map>
#include <memory>

#include "distributed/checkpoint/metadata.h"
#include "ember/error.h"
#include "serialize/pickle.h"
#include "serialize/pickle_input.h"

namespace ember::dcp::detail {
namespace {

constexpr const char* kMetadataOp = "dcp.load";
constexpr int kMaxDepth = 32;

struct Obj;
using Ref = std::shared_ptr<Obj>;

struct Obj {
  enum Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Instance, Mark } kind = None;
  int64_t i = 0;
  double f = 0;
  std::string s;           // Str; Global: "module.name"
  std::vector<Ref> items;  // Tuple, List; Dict: key, value, key, value, ...
  std::string cls;         // Instance: the record class name
  Ref state;               // Instance: what BUILD gave
  int depth = 0;
};

// Record classes by (module, name) -> their short name.
const char* record_class(const std::string& module, const std::string& name) {
  static const char* kRecords[] = {
      "Metadata",      "TensorStorageMetadata", "ChunkStorageMetadata", "BytesStorageMetadata",
      "MetadataIndex", "_StorageInfo",          "TensorProperties"};
  const bool metadata_module = module == "torch.distributed._shard.checkpoint.metadata" ||
                               module == "torch.distributed.checkpoint.metadata";
  const bool filesystem_module = module == "torch.distributed._shard.checkpoint.filesystem" ||
                                 module == "torch.distributed.checkpoint.filesystem";
  const bool sharded_module = module == "torch.distributed._shard.sharded_tensor.metadata";
  for (const char* r : kRecords) {
    if (name != r) continue;
    if (name == "_StorageInfo") return filesystem_module ? r : nullptr;
    if (name == "TensorProperties") return sharded_module || metadata_module ? r : nullptr;
    return metadata_module ? r : nullptr;
  }
  return nullptr;
}

bool is_dtype_name(const std::string& name) {
  for (int t = 0; t < kNumDtypes; ++t)
    if (name == dtype_name(Dtype(t))) return true;
  return false;
}

class MetadataUnpickler final : private serialize::PickleInput {
 public:
  MetadataUnpickler(std::string_view data, const std::string& what)
      : PickleInput(data), what_(what) {}
  // A pickle can make a container hold itself (memo get, then append or setitem): owned
  // through shared_ptr, such a cycle would outlive the read. Every object made is emptied here,
  // once the reader has copied out what it needed (or the read failed).
  ~MetadataUnpickler() {
    for (const Ref& r : made_) {
      r->items.clear();
      r->state.reset();
    }
  }
  MetadataUnpickler(const MetadataUnpickler&) = delete;
  MetadataUnpickler& operator=(const MetadataUnpickler&) = delete;

  Ref run() {
    while (true) {
      const uint8_t op = uint8_t(*read(1));
      if (op == serialize::kStop) break;
      step(op);
    }
    if (stack_.size() != 1) bad("the pickle does not end with exactly one object");
    return stack_.back();
  }

 private:
  [[noreturn]] void bad(const std::string& why) const override {
    fail(kMetadataOp, "'", what_, "' at byte ", pos_, ": ", why);
  }
  Ref pop() {
    if (stack_.empty() || stack_.back()->kind == Obj::Mark) bad("stack underflow");
    Ref r = std::move(stack_.back());
    stack_.pop_back();
    return r;
  }
  std::vector<Ref> pop_to_mark() {
    size_t m = stack_.size();
    while (m > 0 && stack_[m - 1]->kind != Obj::Mark) --m;
    if (m == 0) bad("no MARK on the stack");
    std::vector<Ref> items(stack_.begin() + long(m), stack_.end());
    stack_.resize(m - 1);
    return items;
  }
  void push(Ref r) { stack_.push_back(std::move(r)); }
  void adopt(Obj& parent, const Ref& child) {
    parent.depth = std::max(parent.depth, child->depth + 1);
    if (parent.depth > kMaxDepth) bad("objects nested deeper than " + std::to_string(kMaxDepth));
  }
  Ref container(Obj::Kind kind, std::vector<Ref> items) {
    Ref r = make(kind);
    for (const Ref& c : items) adopt(*r, c);
    r->items = std::move(items);
    return r;
  }
  Ref str(std::string s) {
    Ref r = make(Obj::Str);
    r->s = std::move(s);
    return r;
  }
  Ref integer(int64_t v) {
    Ref r = make(Obj::Int);
    r->i = v;
    return r;
  }
  Ref& top() {
    if (stack_.empty()) bad("stack underflow");
    return stack_.back();
  }

  Ref global(const std::string& module, const std::string& name) {
    const bool allowed = record_class(module, name) ||
                         (module == "torch" && (name == "Size" || is_dtype_name(name))) ||
                         (module == "torch.serialization" && name == "_get_layout") ||
                         (module == "builtins" && name == "getattr") ||
                         (module == "torch.distributed._shard.sharded_tensor.metadata" &&
                          name == "MEM_FORMAT_ENCODING");
    if (!allowed)
      bad("global '" + module + "." + name +
          "' is not allowed in a checkpoint's metadata (only DCP's record classes, torch.Size, "
          "dtypes and the layout / memory-format helpers are)");
    Ref r = make(Obj::Global);
    r->s = module + "." + name;
    return r;
  }

  // The three callables REDUCE may evaluate (Note [Allowlist of the metadata pickle]).
  Ref reduce(const Ref& fn, const Ref& args) {
    if (fn->kind != Obj::Global || args->kind != Obj::Tuple) bad("REDUCE of a non-global");
    if (fn->s == "torch.Size") {
      if (args->items.size() != 1 || args->items[0]->kind != Obj::Tuple)
        bad("torch.Size takes one tuple");
      for (const Ref& d : args->items[0]->items)
        if (d->kind != Obj::Int) bad("torch.Size of a non-integer");
      return args->items[0];
    }
    if (fn->s == "torch.serialization._get_layout") {
      if (args->items.size() != 1 || args->items[0]->kind != Obj::Str) bad("_get_layout(str)");
      return args->items[0];
    }
    if (fn->s == "builtins.getattr") {
      if (args->items.size() != 2 || args->items[0]->kind != Obj::Global ||
          args->items[0]->s !=
              "torch.distributed._shard.sharded_tensor.metadata.MEM_FORMAT_ENCODING" ||
          args->items[1]->kind != Obj::Str)
        bad("getattr is allowed only on MEM_FORMAT_ENCODING");
      return args->items[1];
    }
    bad("calling '" + fn->s + "' is not allowed");
  }

  void step(uint8_t op) {
    using namespace serialize;
    switch (op) {
      case kProto:
        read(1);
        return;
      case kFrame:
        read(8);
        return;
      case kMark:
        push(make(Obj::Mark));
        return;
      case kPop:
        pop();
        return;
      case kNone:
        push(make(Obj::None));
        return;
      case kNewTrue:
      case kNewFalse: {
        Ref r = make(Obj::Bool);
        r->i = op == kNewTrue;
        return push(r);
      }
      case kBinInt:
        return push(integer(int32_t(uint32_t(read_le(4)))));
      case kBinInt1:
        return push(integer(int64_t(read_le(1))));
      case kBinInt2:
        return push(integer(int64_t(read_le(2))));
      case kLong1: {
        const int n = int(read_le(1));
        if (n > 8) bad("LONG1 wider than 64 bits");
        uint64_t v = n ? read_le(n) : 0;
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign
        return push(integer(int64_t(v)));
      }
      case kBinFloat: {
        const auto* p = reinterpret_cast<const uint8_t*>(read(8));
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | p[k];
        Ref r = make(Obj::Float);
        std::memcpy(&r->f, &bits, 8);
        return push(r);
      }
      case kShortBinUnicode: {
        const size_t n = read_le(1);
        return push(str(std::string(read(n), n)));
      }
      case kBinUnicode: {
        const size_t n = read_le(4);
        return push(str(std::string(read(n), n)));
      }
      case kBinUnicode8: {
        const uint64_t n = read_le(8);
        if (n > data_.size()) bad("string longer than the file");
        return push(str(std::string(read(size_t(n)), size_t(n))));
      }
      case kGlobal: {
        std::string module = read_line();
        std::string name = read_line();
        return push(global(module, name));
      }
      case kStackGlobal: {
        Ref name = pop(), module = pop();
        if (name->kind != Obj::Str || module->kind != Obj::Str) bad("STACK_GLOBAL of non-strings");
        return push(global(module->s, name->s));
      }
      case kEmptyTuple:
        return push(container(Obj::Tuple, {}));
      case kTuple:
        return push(container(Obj::Tuple, pop_to_mark()));
      case kTuple1:
      case kTuple2:
      case kTuple3: {
        std::vector<Ref> items(size_t(op - kTuple1 + 1));
        for (size_t k = items.size(); k-- > 0;) items[k] = pop();
        return push(container(Obj::Tuple, std::move(items)));
      }
      case kEmptyList:
        return push(container(Obj::List, {}));
      case kEmptyDict:
        return push(container(Obj::Dict, {}));
      case kAppend: {
        Ref v = pop();
        return append(top(), {v});
      }
      case kAppends: {
        std::vector<Ref> items = pop_to_mark();
        return append(top(), items);
      }
      case kSetItem: {
        Ref v = pop(), k = pop();
        return set_items(top(), {k, v});
      }
      case kSetItems: {
        std::vector<Ref> items = pop_to_mark();
        if (items.size() % 2) bad("SETITEMS with an odd number of items");
        return set_items(top(), items);
      }
      case kNewObj: {
        Ref args = pop(), cls = pop();
        if (cls->kind != Obj::Global || args->kind != Obj::Tuple || !args->items.empty())
          bad("NEWOBJ of a non-class or with arguments");
        const size_t dot = cls->s.rfind('.');
        const char* name = record_class(cls->s.substr(0, dot), cls->s.substr(dot + 1));
        if (!name) bad("'" + cls->s + "' is not a record class");
        Ref r = make(Obj::Instance);
        r->cls = name;
        return push(r);
      }
      case kBuild: {
        Ref state = pop();
        Ref& inst = top();
        if (inst->kind != Obj::Instance || inst->state) bad("BUILD of a non-record");
        adopt(*inst, state);
        inst->state = state;
        return;
      }
      case kReduce: {
        Ref args = pop(), fn = pop();
        return push(reduce(fn, args));
      }
      case kMemoize:
        memo_[uint32_t(memo_.size())] = top();
        return;
      case kBinPut:
        memo_[uint32_t(read_le(1))] = top();
        return;
      case kLongBinPut:
        memo_[uint32_t(read_le(4))] = top();
        return;
      case kBinGet:
      case kLongBinGet: {
        const uint32_t k = uint32_t(read_le(op == kBinGet ? 1 : 4));
        auto it = memo_.find(k);
        if (it == memo_.end()) bad("memo " + std::to_string(k) + " is not set");
        return push(it->second);
      }
      default:
        bad(std::string("opcode ") + opcode_name(op) +
            " is not allowed in a checkpoint's metadata");
    }
  }

  void append(Ref& list, const std::vector<Ref>& items) {
    if (list->kind != Obj::List) bad("APPEND to a non-list");
    for (const Ref& v : items) {
      adopt(*list, v);
      list->items.push_back(v);
    }
  }
  void set_items(Ref& dict, const std::vector<Ref>& items) {
    if (dict->kind != Obj::Dict) bad("SETITEM on a non-dict");
    for (const Ref& v : items) {
      adopt(*dict, v);
      dict->items.push_back(v);
    }
  }

  Ref make(Obj::Kind k) {
    Ref r = std::make_shared<Obj>();
    r->kind = k;
    made_.push_back(r);
    return r;
  }

  std::string what_;
  std::vector<Ref> made_;  // every object, for the destructor to break cycles
  std::vector<Ref> stack_;
  std::map<uint32_t, Ref> memo_;
};

// ── from objects to Metadata ─────────────────────────────────────────────
class MetadataReader {
 public:
  explicit MetadataReader(const std::string& what) : what_(what) {}

  Metadata read(const Ref& root) {
    const Ref& s = record(root, "Metadata");
    Metadata m;
    for (const auto& [k, v] : dict(field(s, "state_dict_metadata"))) {
      const std::string fqn = string(k);
      if (v->kind == Obj::Instance && v->cls == "BytesStorageMetadata") {
        m.state_dict_metadata.push_back({fqn, BytesMeta{}});
        continue;
      }
      const Ref& t = record(v, "TensorStorageMetadata");
      TensorMeta tm;
      read_properties(field(t, "properties"), tm);
      tm.size = ints(field(t, "size"));
      for (const Ref& c : list(field(t, "chunks"))) {
        const Ref& cs = record(c, "ChunkStorageMetadata");
        tm.chunks.push_back({ints(field(cs, "offsets")), ints(field(cs, "sizes"))});
      }
      m.state_dict_metadata.push_back({fqn, std::move(tm)});
    }
    for (const auto& [k, v] : dict(field(s, "storage_data"))) {
      const Ref& index = record(k, "MetadataIndex");
      const Ref& info = record(v, "_StorageInfo");
      StorageEntry e;
      e.fqn = string(field(index, "fqn"));
      if (const Ref& off = field(index, "offset", true); off && off->kind != Obj::None)
        e.offset = ints(off);
      if (const Ref& idx = field(index, "index", true); idx && idx->kind != Obj::None)
        e.index = integer(idx);
      e.relative_path = string(field(info, "relative_path"));
      e.file_offset = integer(field(info, "offset"));
      e.length = integer(field(info, "length"));
      if (e.file_offset < 0 || e.length <= 0) bad("storage of '" + e.fqn + "' has a bad range");
      m.storage_data.push_back(std::move(e));
    }
    if (const Ref& pd = field(s, "planner_data", true); pd && pd->kind == Obj::Dict) {
      for (const auto& [k, v] : dict(pd)) {
        std::vector<PathPart> path;
        if (v->kind != Obj::Tuple) continue;  // not ember's: ignored, as PyTorch ignores it
        for (const Ref& part : v->items) {
          if (part->kind == Obj::Str)
            path.emplace_back(part->s);
          else if (part->kind == Obj::Int)
            path.emplace_back(part->i);
          else
            bad("planner_data path of a non-key");
        }
        m.planner_data.push_back({string(k), std::move(path)});
      }
    }
    return m;
  }

 private:
  [[noreturn]] void bad(const std::string& why) const {
    fail(kMetadataOp, "'", what_, "' is not a distributed checkpoint's metadata: ", why);
  }
  const Ref& record(const Ref& o, const char* cls) const {
    if (o->kind != Obj::Instance || o->cls != cls || !o->state)
      bad(std::string("expected a ") + cls + " record");
    return o->state;
  }
  Ref field(const Ref& state, const char* name, bool optional = false) const {
    if (state->kind != Obj::Dict) bad(std::string("a record's state is not a dict (") + name + ")");
    for (size_t k = 0; k + 1 < state->items.size(); k += 2)
      if (state->items[k]->kind == Obj::Str && state->items[k]->s == name)
        return state->items[k + 1];
    if (!optional) bad(std::string("field '") + name + "' is missing");
    return nullptr;
  }
  std::vector<std::pair<Ref, Ref>> dict(const Ref& o) const {
    if (!o || o->kind != Obj::Dict) bad("expected a dict");
    std::vector<std::pair<Ref, Ref>> out;
    for (size_t k = 0; k + 1 < o->items.size(); k += 2)
      out.emplace_back(o->items[k], o->items[k + 1]);
    return out;
  }
  const std::vector<Ref>& list(const Ref& o) const {
    if (!o || o->kind != Obj::List) bad("expected a list");
    return o->items;
  }
  std::string string(const Ref& o) const {
    if (!o || o->kind != Obj::Str) bad("expected a string");
    return o->s;
  }
  int64_t integer(const Ref& o) const {
    if (!o || o->kind != Obj::Int) bad("expected an int");
    return o->i;
  }
  std::vector<int64_t> ints(const Ref& o) const {
    if (!o || o->kind != Obj::Tuple) bad("expected a torch.Size");
    std::vector<int64_t> v;
    for (const Ref& d : o->items) v.push_back(integer(d));
    return v;
  }
  // TensorProperties' state: the 5-tuple of its __getstate__, or (2.x / a dataclass) a dict.
  void read_properties(const Ref& o, TensorMeta& tm) const {
    const Ref& s = record(o, "TensorProperties");
    Ref dtype, requires_grad;
    if (s->kind == Obj::Tuple && s->items.size() == 5) {
      dtype = s->items[0];
      requires_grad = s->items[2];
    } else {
      dtype = field(s, "dtype");
      requires_grad = field(s, "requires_grad", true);
    }
    if (dtype->kind != Obj::Global || dtype->s.rfind("torch.", 0) != 0)
      bad("dtype is not torch.<dtype>");
    const std::string name = dtype->s.substr(6);
    bool found = false;
    for (int t = 0; t < kNumDtypes; ++t)
      if (name == dtype_name(Dtype(t))) tm.dtype = Dtype(t), found = true;
    if (!found) bad("unknown dtype " + dtype->s);
    tm.requires_grad = requires_grad && requires_grad->kind == Obj::Bool && requires_grad->i;
  }

  std::string what_;
};

}  // namespace

Metadata read_metadata(std::string_view pickle, const std::string& what) {
  MetadataUnpickler unpickler(pickle, what);
  const Ref root = unpickler.run();
  return MetadataReader(what).read(root);
}

}  // namespace ember::dcp::detail
