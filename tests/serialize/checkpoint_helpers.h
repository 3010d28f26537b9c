// Helpers for the checkpoint tests: compare a loaded Value with the JSON "mirror" that
// tests/golden/gen_checkpoints.py prints for a torch.load'ed object, run PyTorch when present,
// and make scratch directories.
#pragma once

#include "golden_dir.h"
#include <ember/ember.h>
#include <ember/serialize.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace ember::test {

using json = nlohmann::json;
inline const std::string kCheckpoints = ember::test::golden_path("checkpoints/");

inline const json& expected() {
  static const json j = load_golden("checkpoints/expected.json");
  return j;
}

/// A fresh directory under /tmp, removed at the end of the test.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    char tmpl[] = "/tmp/ember-ckpt-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

/// Compares `v` with a mirror; storages shared on one side must be shared on the other.
struct MirrorCheck {
  std::map<uint64_t, const StorageImpl*> py_to_ember;
  std::map<const StorageImpl*, uint64_t> ember_to_py;

  void operator()(const Value& v, const json& m, const std::string& where) {
    const std::string type = m.at("type");
    if (type == "none") {
      EXPECT_TRUE(v.is_none()) << where;
      return;
    }
    if (type == "bool") {
      EXPECT_EQ(v.to_bool(), m.at("value").get<bool>()) << where;
      return;
    }
    if (type == "int") {
      EXPECT_EQ(v.to_int(), m.at("value").get<int64_t>()) << where;
      return;
    }
    if (type == "double") {
      EXPECT_EQ(v.to_double(), m.at("value").get<double>()) << where;
      return;
    }
    if (type == "string") {
      EXPECT_EQ(v.to_string(), m.at("value").get<std::string>()) << where;
      return;
    }
    if (type == "list" || type == "tuple") {
      ASSERT_EQ(type == "list" ? v.is_list() : v.is_tuple(), true) << where << " is a " << v.kind_name();
      const auto& items = v.is_list() ? v.to_list() : v.to_tuple().items;
      ASSERT_EQ(items.size(), m.at("items").size()) << where;
      for (size_t i = 0; i < items.size(); ++i)
        (*this)(items[i], m["items"][i], where + "[" + std::to_string(i) + "]");
      return;
    }
    if (type == "dict") {
      ASSERT_TRUE(v.is_dict()) << where << " is a " << v.kind_name();
      const Dict& d = v.to_dict();
      EXPECT_EQ(d.ordered(), m.at("ordered").get<bool>()) << where;
      ASSERT_EQ(d.size(), m.at("items").size()) << where;
      size_t i = 0;
      for (const auto& [k, x] : d) {
        const json& kv = m["items"][i++];
        (*this)(k, kv[0], where + ".key");
        std::ostringstream key;
        key << k;
        (*this)(x, kv[1], where + "[" + key.str() + "]");
      }
      if (m.contains("metadata")) (*this)(d.metadata(), m["metadata"], where + "._metadata");
      return;
    }
    ASSERT_EQ(type, "tensor");
    ASSERT_TRUE(v.is_tensor()) << where << " is a " << v.kind_name();
    const Tensor& t = v.to_tensor();
    EXPECT_EQ(dtype_name(t.dtype()), m.at("dtype").get<std::string>()) << where;
    EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
              m.at("shape").get<std::vector<int64_t>>()) << where;
    EXPECT_EQ(std::vector<int64_t>(t.strides().begin(), t.strides().end()),
              m.at("stride").get<std::vector<int64_t>>()) << where;
    EXPECT_EQ(t.storage_offset(), m.at("offset").get<int64_t>()) << where;
    EXPECT_EQ(t.requires_grad(), m.at("requires_grad").get<bool>()) << where;
    const json& vals = m.at("values");
    ASSERT_EQ(size_t(t.numel()), vals.size()) << where;
    if (t.is_floating_point()) {
      Tensor f = t.detach().to(kFloat64).contiguous();
      for (size_t i = 0; i < vals.size(); ++i)
        EXPECT_EQ(f.data_ptr<double>()[i], vals[i].get<double>()) << where << " element " << i;
    } else {
      Tensor f = t.to(kInt64).contiguous();
      for (size_t i = 0; i < vals.size(); ++i)
        EXPECT_EQ(f.data_ptr<int64_t>()[i], vals[i].get<int64_t>()) << where << " element " << i;
    }
    if (t.numel() == 0) return;
    const uint64_t py = m.at("storage").get<uint64_t>();
    const StorageImpl* mine = t.storage().get();
    auto [a, fresh_a] = py_to_ember.emplace(py, mine);
    auto [b, fresh_b] = ember_to_py.emplace(mine, py);
    EXPECT_EQ(a->second, mine) << where << ": PyTorch shares this storage, ember does not";
    EXPECT_EQ(b->second, py) << where << ": ember shares this storage, PyTorch does not";
  }
};

inline void expect_mirror(const Value& v, const json& m, const std::string& where) {
  MirrorCheck check;
  check(v, m, where);
}

/// Whether `p` lies in a mapping of a file whose path ends with `suffix` (from /proc/self/maps):
/// a loaded tensor that views its file instead of holding a copy.
inline bool in_mapping_of(const void* p, const std::string& suffix) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.size() < suffix.size() ||
        line.compare(line.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    uintptr_t lo = 0, hi = 0;
    std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi);
    const auto at = reinterpret_cast<uintptr_t>(p);
    if (at >= lo && at < hi) return true;
  }
  return false;
}

inline bool have_torch() {
  static const bool ok =
      std::system("/usr/bin/python3 -c 'import torch' > /dev/null 2>&1") == 0;
  return ok;
}

/// torch.load(path) in Debian's PyTorch, as gen_checkpoints.py --mirror prints it.
inline json torch_mirror(const std::string& path) {
  const std::string cmd = "/usr/bin/python3 " + ember::test::golden_path("gen_checkpoints.py") + " --mirror '" +
                          path + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int rc = p ? ::pclose(p) : -1;
  EXPECT_EQ(rc, 0) << "torch.load failed:\n" << out;
  return rc == 0 ? json::parse(out) : json::object();
}

}  // namespace ember::test
