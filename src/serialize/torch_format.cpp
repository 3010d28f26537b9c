// save() and load(): PyTorch's checkpoint archive (see ../shared/reference/
// pytorch-checkpoint-format.md). An archive holds, under one top-level folder:
//   data.pkl    the object tree, pickle protocol 2; tensors are
//               _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())
//               and a storage is the persistent id ('storage', torch.<T>Storage, key, loc, numel)
//   data/<key>  each storage's raw little-endian bytes, on a 64-byte boundary
//   byteorder   "little";  version  "3\n"
#include <bit>
#include <unordered_map>

#include "ember/error.h"
#include "ember/serialize.h"
#include "ember/tensor.h"
#include "serialize/pickle.h"
#include "serialize/torch_format.h"
#include "serialize/zip_archive.h"

namespace ember {
namespace {

static_assert(std::endian::native == std::endian::little, "storages are written as in memory");

using serialize::PickleWriter;

constexpr size_t kMaxDepth = 512;
constexpr uint64_t kMaxPickleBytes = uint64_t(1) << 30;

const char* storage_class(Dtype t) {
  switch (t) {
    case kBool: return "BoolStorage";
    case kUInt8: return "ByteStorage";
    case kInt8: return "CharStorage";
    case kInt16: return "ShortStorage";
    case kInt32: return "IntStorage";
    case kInt64: return "LongStorage";
    case kFloat16: return "HalfStorage";
    case kBFloat16: return "BFloat16Storage";
    case kFloat32: return "FloatStorage";
    case kFloat64: return "DoubleStorage";
  }
  return "?";
}

// PyTorch's `_metadata` for a state dict, derived from its keys when the Dict has none: every
// module prefix ("" for the root, "layer", "layer.0", ...) with {'version': 1}, and version 2
// for modules holding BatchNorm's running statistics (BatchNorm's _version is 2).
Value derived_metadata(const Dict& d) {
  Dict meta;
  meta.set_ordered(true);
  auto entry = [&](const std::string& prefix, int64_t version) {
    if (!meta.contains(prefix) || version > meta.at(prefix)["version"].to_int())
      meta.insert(prefix, Dict{{"version", version}});
  };
  entry("", 1);
  for (const auto& [k, v] : d) {
    if (!k.is_string() || !v.is_tensor()) return Value();  // not a state dict
    const std::string& key = k.to_string();
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1))
      entry(key.substr(0, dot), 1);
    const size_t last = key.rfind('.');
    const std::string leaf = last == std::string::npos ? key : key.substr(last + 1);
    if (leaf == "running_mean" || leaf == "running_var" || leaf == "num_batches_tracked")
      entry(last == std::string::npos ? "" : key.substr(0, last), 2);
  }
  return Value(std::move(meta));
}

class TorchPickler {
 public:
  struct StorageEntry {
    Storage storage;
    Dtype dtype;
    Tensor cpu_bytes;  // a CPU copy when the storage lives on another device
  };

  void run(const Value& v) {
    w_.proto();
    write(v, 0);
    w_.stop();
  }
  const std::string& bytes() const { return w_.bytes(); }
  const std::vector<StorageEntry>& storages() const { return storages_; }

 private:
  void write(const Value& v, size_t depth);
  void write_tensor(const Tensor& t);
  void write_dict(const Dict& d, size_t depth);
  bool memo_get(const void* p) {
    const auto it = memo_.find(p);
    if (it == memo_.end()) return false;
    w_.get(it->second);
    return true;
  }

  PickleWriter w_;
  std::unordered_map<const void*, uint32_t> memo_;  // containers and tensors written once
  std::unordered_map<const StorageImpl*, size_t> storage_keys_;
  std::vector<StorageEntry> storages_;
  std::vector<Value> keep_alive_;  // values made while pickling (their addresses are memo keys)
};

void TorchPickler::write(const Value& v, size_t depth) {
  EMBER_CHECK(depth < kMaxDepth, "save", "the value nests deeper than ", kMaxDepth,
              " (or contains itself)");
  switch (v.kind()) {
    case Value::Kind::None: return w_.none();
    case Value::Kind::Bool: return w_.boolean(v.to_bool());
    case Value::Kind::Int: return w_.integer(v.to_int());
    case Value::Kind::Double: return w_.real(v.to_double());
    case Value::Kind::String: return w_.string(v.to_string());
    case Value::Kind::Tensor: return write_tensor(v.to_tensor());
    case Value::Kind::List: {
      const List& l = v.to_list();
      if (memo_get(&l)) return;
      w_.op(serialize::kEmptyList);
      memo_[&l] = w_.put_memo();  // before the items, as Python's pickler (self-reference)
      for (size_t i = 0; i < l.size(); i += 1000) {  // batches of 1000, as Python's pickler
        w_.op(serialize::kMark);
        for (size_t j = i; j < std::min(l.size(), i + 1000); ++j) write(l[j], depth + 1);
        w_.op(serialize::kAppends);
      }
      return;
    }
    case Value::Kind::Tuple: {
      const Tuple& t = v.to_tuple();
      if (memo_get(&t)) return;
      if (t.items.empty()) {
        w_.op(serialize::kEmptyTuple);
      } else {
        if (t.items.size() > 3) w_.op(serialize::kMark);
        for (const Value& x : t.items) write(x, depth + 1);
        w_.op(t.items.size() == 1   ? serialize::kTuple1
              : t.items.size() == 2 ? serialize::kTuple2
              : t.items.size() == 3 ? serialize::kTuple3
                                    : serialize::kTuple);
      }
      memo_[&t] = w_.put_memo();
      return;
    }
    case Value::Kind::Dict: return write_dict(v.to_dict(), depth);
  }
}

void TorchPickler::write_dict(const Dict& d, size_t depth) {
  if (memo_get(&d)) return;
  Value meta;
  if (d.ordered()) {
    // OrderedDict.__reduce__: (OrderedDict, (), {'_metadata': ...}, None, items)
    w_.global("collections", "OrderedDict");
    w_.op(serialize::kEmptyTuple);
    w_.op(serialize::kReduce);
    meta = d.metadata().is_none() ? derived_metadata(d) : d.metadata();
  } else {
    w_.op(serialize::kEmptyDict);
  }
  memo_[&d] = w_.put_memo();
  auto it = d.begin();
  for (size_t i = 0; i < d.size(); i += 1000) {
    w_.op(serialize::kMark);
    for (size_t j = i; j < std::min(d.size(), i + 1000); ++j, ++it) {
      write(it->first, depth + 1);
      write(it->second, depth + 1);
    }
    w_.op(serialize::kSetItems);
  }
  if (!meta.is_none()) {
    // Memo entries are keyed by address, so the temporaries must outlive the pickling.
    keep_alive_.push_back(meta);
    keep_alive_.emplace_back(Dict{{"_metadata", meta}});
    write(keep_alive_.back(), depth + 1);
    w_.op(serialize::kBuild);
  }
}

void TorchPickler::write_tensor(const Tensor& t) {
  EMBER_CHECK(t.defined(), "save", "cannot save an undefined tensor");
  if (memo_get(t.impl())) return;
  const Storage& storage = t.storage();
  auto [pos, fresh] = storage_keys_.emplace(storage.get(), storages_.size());
  if (fresh) {
    StorageEntry e{storage, t.dtype(), Tensor()};
    if (!t.is_cpu()) {
      // Copy the whole storage to the host as bytes (the file holds storages, not views).
      Tensor all(make_intrusive<TensorImpl>(storage, kUInt8,
                                            std::vector<int64_t>{int64_t(storage->nbytes())},
                                            std::vector<int64_t>{1}, 0));
      e.cpu_bytes = all.cpu();
    }
    storages_.push_back(std::move(e));
  }
  const StorageEntry& e = storages_[pos->second];
  EMBER_CHECK(e.dtype == t.dtype(), "save", "tensors of dtypes ", e.dtype, " and ", t.dtype(),
              " share one storage; PyTorch's format types each storage");
  w_.global("torch._utils", "_rebuild_tensor_v2");
  w_.op(serialize::kMark);  // the arguments
  // The persistent id ('storage', torch.FloatStorage, '<key>', 'cpu', numel).
  w_.op(serialize::kMark);
  w_.string("storage");
  w_.global("torch", storage_class(t.dtype()));
  w_.string(std::to_string(pos->second));
  w_.string(t.is_cpu() ? "cpu" : t.device().str());
  w_.integer(int64_t(storage->nbytes() / size_t(t.element_size())));
  w_.op(serialize::kTuple);
  w_.op(serialize::kBinPersId);
  w_.integer(t.storage_offset());
  auto ints = [&](IntArrayRef xs) {
    w_.op(serialize::kMark);
    for (int64_t x : xs) w_.integer(x);
    w_.op(serialize::kTuple);
  };
  ints(t.sizes());
  ints(t.strides());
  w_.boolean(t.requires_grad());
  w_.global("collections", "OrderedDict");  // backward hooks: none
  w_.op(serialize::kEmptyTuple);
  w_.op(serialize::kReduce);
  w_.op(serialize::kTuple);
  w_.op(serialize::kReduce);
  memo_[t.impl()] = w_.put_memo();
}

}  // namespace

void save(const Value& value, const std::string& path, const SaveOptions& options) {
  serialize::ZipWriter zip(path, options.sync);
  serialize::write_archive(value, zip);
}

void serialize::write_archive(const Value& value, ZipWriter& zip) {
  TorchPickler pickler;
  pickler.run(value);
  const std::string prefix = "archive/";
  zip.add(prefix + "data.pkl", pickler.bytes().data(), pickler.bytes().size());
  static const char kLittle[] = "little";
  zip.add(prefix + "byteorder", kLittle, 6);
  const auto& storages = pickler.storages();
  for (size_t i = 0; i < storages.size(); ++i) {
    const auto& e = storages[i];
    const void* data = e.cpu_bytes.defined() ? e.cpu_bytes.data_ptr() : e.storage->data();
    zip.add(prefix + "data/" + std::to_string(i), data, e.storage->nbytes());
  }
  static const char kVersion[] = "3\n";
  zip.add(prefix + "version", kVersion, 2);
  zip.commit();
}

Value load(const std::string& path, const LoadOptions& options) {
  return serialize::load_archive(path, 0, serialize::ZipReader::kWholeFile, options);
}

Value serialize::load_archive(const std::string& path, uint64_t offset, uint64_t length,
                              const LoadOptions& options) {
  serialize::ZipReader zip(path, offset, length);
  const std::vector<std::string> names = zip.names();
  EMBER_CHECK(!names.empty(), "load", "'", path, "' is an empty zip archive, not a checkpoint");
  // The records sit under one folder whose name varies ("archive", or the file's stem in 1.13).
  const size_t slash = names[0].find('/');
  EMBER_CHECK(slash != std::string::npos, "load", "'", path,
              "' is not a PyTorch checkpoint (its entries are not under one folder)");
  const std::string prefix = names[0].substr(0, slash + 1);
  for (const std::string& n : names)
    EMBER_CHECK(n.rfind(prefix + "code/", 0) != 0 && n != prefix + "constants.pkl", "load", "'",
                path, "' is a TorchScript archive (torch.jit.save); load it with torch.jit.load "
                "and save its state_dict() with torch.save");
  EMBER_CHECK(zip.has(prefix + "data.pkl"), "load", "'", path,
              "' is a zip archive but not a PyTorch checkpoint (no ", prefix, "data.pkl)");
  if (zip.has(prefix + "byteorder")) {
    const std::string order = zip.read_string(prefix + "byteorder", 16);
    EMBER_CHECK(order == "little", "load", "'", path, "' stores ", order,
                "-endian data; only little-endian checkpoints are supported");
  }
  const std::string pickle = zip.read_string(prefix + "data.pkl", kMaxPickleBytes);

  std::unordered_map<std::string, std::pair<Storage, Dtype>> loaded;
  // Copies of records wait until the pickle is read, and are then made all at once on every
  // thread (ZipReader::read_all); nothing reads a CPU storage's bytes while unpickling. A
  // storage that goes to another device is copied there during unpickling, so it is read first.
  std::vector<serialize::ZipReader::RecordRead> copies;
  serialize::UnpickleOptions o;
  o.weights_only = options.weights_only;
  o.load_storage = [&](const serialize::StorageRef& ref) -> Storage {
    if (auto it = loaded.find(ref.key); it != loaded.end()) {
      EMBER_CHECK(it->second.second == ref.dtype, "load", "storage '", ref.key, "' is used as ",
                  it->second.second, " and as ", ref.dtype);
      return it->second.first;
    }
    EMBER_CHECK(!ref.key.empty() && ref.key.size() < 64 &&
                    ref.key.find_first_of("/\\") == std::string::npos && ref.key != "..",
                "load", "storage key '", ref.key, "' is not a record name");
    const std::string record = prefix + "data/" + ref.key;
    const uint64_t bytes = zip.size(record);
    uint64_t want;
    EMBER_CHECK(!__builtin_mul_overflow(uint64_t(ref.numel), uint64_t(itemsize(ref.dtype)), &want) &&
                    want == bytes,
                "load", "storage '", ref.key, "' declares ", ref.numel, " ", ref.dtype,
                " elements but record data/", ref.key, " holds ", bytes, " bytes");
    Storage s = options.mmap ? zip.view(record, uint64_t(itemsize(ref.dtype))) : Storage();
    if (!s) {  // compressed, misaligned or not to be mapped: a checked copy
      s = make_intrusive<StorageImpl>(size_t(bytes), Device(kCPU));
      if (options.map_location(Device(ref.location)).is_cpu())
        copies.push_back({record, s->data(), bytes});
      else
        zip.read(record, s->data(), bytes);
    }
    loaded.emplace(ref.key, std::make_pair(s, ref.dtype));
    return s;
  };
  o.device_of = [&](const std::string& location) {
    return options.map_location(Device(location));
  };
  Value result = serialize::unpickle(pickle, o);
  zip.read_all(copies);
  return result;
}

}  // namespace ember
