// safetensors::save_file / load_file. See ember/safetensors.h for the format. Validation follows
// the reference implementation: header at most 100 MB and starting with '{', no duplicate names,
// known dtypes, each tensor's byte range equal to numel * itemsize, and the ranges tiling the
// buffer exactly (no gaps, no overlaps, nothing past the end).
#include "ember/safetensors.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "ember/creation.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "serialize/atomic_file.h"
#include "serialize/mapped_file.h"

namespace ember::safetensors {
namespace {

using json = nlohmann::json;
constexpr uint64_t kMaxHeader = 100'000'000;

struct DtypeName {
  const char* name;
  Dtype dtype;
};
constexpr DtypeName kDtypes[] = {
    {"BOOL", kBool}, {"U8", kUInt8},   {"I8", kInt8},     {"I16", kInt16}, {"I32", kInt32},
    {"I64", kInt64}, {"F16", kFloat16}, {"BF16", kBFloat16}, {"F32", kFloat32}, {"F64", kFloat64},
};

const char* name_of(Dtype t) {
  for (const auto& d : kDtypes)
    if (d.dtype == t) return d.name;
  fail("safetensors", "no safetensors name for dtype ", t);
}

struct Entry {
  std::string name;
  Dtype dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

struct Parsed {
  std::shared_ptr<const serialize::MappedFile> map;
  uint64_t data_start = 0;
  std::vector<Entry> entries;  // sorted by name
  Metadata metadata;
};

uint64_t unsigned_of(const json& j, const std::string& what) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
    fail("safetensors", what, " must be a non-negative integer, got ", j.dump());
  return j.get<uint64_t>();
}

Parsed parse(const std::string& path) {
  Parsed out;
  out.map = serialize::MappedFile::open(path, "safetensors");
  const uint64_t size = out.map->size();
  if (size < 8)
    fail("safetensors", "'", path, "' is ", size, " bytes, too short for a safetensors header");

  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(out.map->data()[i]);
  if (n > kMaxHeader || n > size - 8)
    fail("safetensors", "'", path, "' declares a ", n, "-byte header but ",
         n > kMaxHeader ? "the limit is 100 MB" : "the file is " + std::to_string(size) + " bytes");
  const char* h = out.map->data() + 8;
  if (n == 0 || h[0] != '{') fail("safetensors", "'", path, "': the header is not a JSON object");
  out.data_start = 8 + n;
  const uint64_t buffer = size - out.data_start;

  std::set<std::string> names;
  std::string duplicate;
  const json::parser_callback_t on_key = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 &&
        !names.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  const json header = json::parse(h, h + n, on_key, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object())
    fail("safetensors", "'", path, "': the header is not valid JSON");
  if (!duplicate.empty()) fail("safetensors", "'", path, "': tensor '", duplicate, "' appears twice");

  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) fail("safetensors", "__metadata__ must be an object of strings");
      for (const auto& [k, v] : info.items()) {
        if (!v.is_string()) fail("safetensors", "__metadata__['", k, "'] is not a string");
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
        !info.contains("data_offsets"))
      fail("safetensors", where, " needs dtype, shape and data_offsets");
    const json& dt = info["dtype"];
    const auto it = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const DtypeName& d) {
      return dt.is_string() && dt.get<std::string>() == d.name;
    });
    if (it == std::end(kDtypes))
      fail("safetensors", where, " has dtype ", dt.dump(), ", which ember does not support");
    Entry e{name, it->dtype, {}, 0, 0};
    if (!info["shape"].is_array() || info["shape"].size() > 64)
      fail("safetensors", where, ": shape must be an array of at most 64 sizes");
    uint64_t bytes = uint64_t(itemsize(e.dtype));
    for (const json& s : info["shape"]) {
      const uint64_t d = unsigned_of(s, where + " shape");
      if (d > uint64_t(INT64_MAX) || __builtin_mul_overflow(bytes, d, &bytes) ||
          bytes > uint64_t(INT64_MAX))
        fail("safetensors", where, ": shape ", info["shape"].dump(), " overflows");
      e.shape.push_back(int64_t(d));
    }
    const json& off = info["data_offsets"];
    if (!off.is_array() || off.size() != 2) fail("safetensors", where, ": data_offsets must be [begin, end]");
    e.begin = unsigned_of(off[0], where + " data_offsets");
    e.end = unsigned_of(off[1], where + " data_offsets");
    if (e.begin > e.end || e.end > buffer)
      fail("safetensors", where, ": data_offsets [", e.begin, ", ", e.end,
           ") lie outside the ", buffer, "-byte buffer");
    if (e.end - e.begin != bytes)
      fail("safetensors", where, ": data_offsets span ", e.end - e.begin, " bytes but shape ",
           info["shape"].dump(), " of ", name_of(e.dtype), " needs ", bytes);
    out.entries.push_back(std::move(e));
  }
  // The byte ranges must tile the buffer: sorted by offset, each starts where the last ended.
  std::vector<const Entry*> by_offset;
  for (const Entry& e : out.entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t at = 0;
  for (const Entry* e : by_offset) {
    if (e->begin != at)
      fail("safetensors", "tensor '", e->name, "' starts at byte ", e->begin, " of the buffer, but ",
           e->begin < at ? "it overlaps the previous tensor" : "bytes before it are unused",
           " (expected ", at, ")");
    at = e->end;
  }
  if (at != buffer)
    fail("safetensors", "'", path, "': the tensors cover ", at, " bytes of the ", buffer,
         "-byte buffer");
  std::sort(out.entries.begin(), out.entries.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

}  // namespace

StateDict load_file(const std::string& path) {
  const Parsed p = parse(path);
  StateDict out;
  for (const Entry& e : p.entries) {
    const uint64_t offset = p.data_start + e.begin;
    const char* data = p.map->data() + offset;
    Tensor t;
    if (e.end > e.begin && reinterpret_cast<uintptr_t>(data) % uintptr_t(itemsize(e.dtype)) == 0) {
      t = Tensor(make_intrusive<TensorImpl>(p.map->storage(offset, e.end - e.begin), e.dtype,
                                            e.shape, contiguous_strides(e.shape), 0));
    } else {  // misaligned for its dtype (or empty): copy
      t = empty(e.shape, TensorOptions{.dtype = e.dtype});
      if (e.end > e.begin) std::memcpy(t.data_ptr(), data, e.end - e.begin);
    }
    out.insert(e.name, std::move(t));
  }
  return out;
}

Metadata load_metadata(const std::string& path) { return parse(path).metadata; }

void save_file(const StateDict& tensors, const std::string& path, const Metadata& metadata) {
  struct Item {
    std::string name;
    Tensor t;  // contiguous, on the CPU
  };
  std::vector<Item> items;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(t.defined(), "safetensors", "tensor '", name, "' is undefined");
    EMBER_CHECK(!name.empty() && name != "__metadata__", "safetensors", "'", name,
                "' cannot name a tensor");
    items.push_back({name, t.detach().cpu().contiguous()});
  }
  // Largest itemsize first, then by name (as the Python package): every tensor stays aligned.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    const int64_t x = a.t.element_size(), y = b.t.element_size();
    return x != y ? x > y : a.name < b.name;
  });
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const Item& it : items) {
    const uint64_t bytes = uint64_t(it.t.numel() * it.t.element_size());
    header[it.name] = {{"dtype", name_of(it.t.dtype())},
                       {"shape", std::vector<int64_t>(it.t.sizes().begin(), it.t.sizes().end())},
                       {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.resize((text.size() + 7) / 8 * 8, ' ');  // pad so the buffer starts 8-byte aligned
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = char(uint64_t(text.size()) >> (8 * i));
  serialize::AtomicFile file(path, "safetensors");
  file.write(len, 8);
  file.write(text.data(), text.size());
  for (const Item& it : items) file.write(it.t.data_ptr(), size_t(it.t.numel() * it.t.element_size()));
  file.commit();
}

}  // namespace ember::safetensors
