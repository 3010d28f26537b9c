// export_chrome_trace: the JSON Trace Event format in Kineto's object form, checked by parsing
// it (nlohmann-json) against the format's rules (complete events with ph/cat/name/pid/tid/ts/dur/
// args, instant and metadata events) and against the trace PyTorch 1.13 exports for the same
// program (tests/golden/gen_profiler.py "trace"): the same record_function and autograd events,
// each with every key PyTorch writes and inside the same parent.
#include <ember/creation.h>
#include <ember/math.h>
#include <ember/profiler.h>
#include <ember/reduce.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "test_support.h"

namespace ember::profiler {
namespace {

using nlohmann::json;

json export_and_parse(profile& prof, const std::string& name) {
  const std::string path =
      (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()) + ".json"))
          .string();
  prof.export_chrome_trace(path);
  std::ifstream in(path);
  json trace = json::parse(in);
  std::filesystem::remove(path);
  return trace;
}

// The golden's program: record_function("my_block") around a sleep and (x * w).sum(), then
// backward.
json trace_of_the_golden_program(bool memory) {
  Tensor x = ones({64, 64}), w = ones({64, 64}, {.requires_grad = true});
  profile prof({.record_shapes = true, .profile_memory = memory});
  Tensor y;
  {
    record_function r("my_block");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    y = (x * w).sum();
  }
  y.backward();
  prof.stop();
  return export_and_parse(prof, memory ? "ember_trace_memory" : "ember_trace");
}

// The innermost complete event on the same thread that contains event i, or null.
const json* parent_of(const std::vector<const json*>& events, size_t i) {
  const json& e = *events[i];
  const json* best = nullptr;
  for (size_t j = 0; j < events.size(); ++j) {
    const json& o = *events[j];
    if (j == i || o["tid"] != e["tid"]) continue;
    const double s = e["ts"], d = e["dur"], os = o["ts"], od = o["dur"];
    if (os <= s && s + d <= os + od && !(od == d && j > i) && (!best || od < (*best)["dur"]))
      best = &o;
  }
  return best;
}

TEST(ChromeTrace, FollowsTheTraceEventFormat) {
  const json trace = trace_of_the_golden_program(/*memory=*/true);
  ASSERT_TRUE(trace.is_object());
  EXPECT_EQ(trace["schemaVersion"], 1);
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  ASSERT_TRUE(trace["traceEvents"].is_array());
  int complete = 0, memory = 0, thread_names = 0;
  std::set<json> threads_with_events;
  for (const json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e["ph"].is_string()) << e;
    ASSERT_TRUE(e["name"].is_string()) << e;
    ASSERT_TRUE(e["pid"].is_number_integer()) << e;
    ASSERT_TRUE(e["tid"].is_number_integer()) << e;
    const std::string ph = e["ph"];
    if (ph == "X") {
      ++complete;
      EXPECT_TRUE(e["cat"] == "cpu_op" || e["cat"] == "user_annotation") << e;
      ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e;
      EXPECT_GE(e["ts"].get<double>(), 0);
      EXPECT_GE(e["dur"].get<double>(), 0);
      EXPECT_TRUE(e["args"].is_object()) << e;
      threads_with_events.insert(e["tid"]);
    } else if (ph == "i") {
      ++memory;
      EXPECT_EQ(e["name"], "[memory]");
      EXPECT_EQ(e["cat"], "cpu_instant_event");
      EXPECT_EQ(e["s"], "t");
      for (const char* key : {"Addr", "Bytes", "Total Allocated", "Total Reserved"})
        EXPECT_TRUE(e["args"][key].is_number_integer()) << key << " in " << e;
    } else {
      ASSERT_EQ(ph, "M") << e;
      EXPECT_TRUE(e["args"]["name"].is_string() || e["args"]["sort_index"].is_number()) << e;
      if (e["name"] == "thread_name") ++thread_names;
    }
  }
  EXPECT_GE(complete, 7);  // my_block and three nodes' two ranges each
  EXPECT_GE(memory, 2);
  EXPECT_EQ(size_t(thread_names), threads_with_events.size());
  const json* block = nullptr;
  for (const json& e : trace["traceEvents"])
    if (e["name"] == "my_block") block = &e;
  ASSERT_NE(block, nullptr);
  EXPECT_EQ((*block)["cat"], "user_annotation");
  EXPECT_GE((*block)["dur"].get<double>(), 2000.0);  // microseconds: it slept 2 ms
}

TEST(ChromeTrace, HasPyTorchsEventsWithTheirKeysAndParents) {
  const json golden = test::load_golden("profiler.json")["trace"];
  EXPECT_EQ(golden["form"], "list");  // Debian's 1.13 has no Kineto: a bare array
  const json trace = trace_of_the_golden_program(/*memory=*/false);
  std::vector<const json*> ours;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X") ours.push_back(&e);
  std::map<std::string, std::vector<std::string>> our_parents;  // per name, in start order
  for (size_t i = 0; i < ours.size(); ++i) {
    const json* p = parent_of(ours, i);
    our_parents[(*ours[i])["name"]].push_back(p ? (*p)["name"].get<std::string>() : "");
  }
  std::map<std::string, size_t> seen;
  // ember's op names are ATen's without "aten::" (ops ATen runs inside another, such as
  // aten::as_strided in aten::sum, are not ember ops of their own and are left out).
  auto ours_of = [](const std::string& name) {
    return name.rfind("aten::", 0) == 0 ? name.substr(6) : name;
  };
  int compared = 0;
  for (const json& g : golden["events"]) {
    const std::string name = ours_of(g["name"]);
    const std::string parent = g["parent"].is_null() ? "" : ours_of(g["parent"]);
    // Only the program's own ops: inside my_block, and the ops backward nodes run.
    const bool op = g["name"].get<std::string>().rfind("aten::", 0) == 0;
    if (op && parent != "my_block" && parent != "MulBackward0") continue;
    if (name == "detach" || name == "empty") continue;  // PyTorch's own bookkeeping
    SCOPED_TRACE(name);
    const size_t nth = seen[name]++;
    ASSERT_LT(nth, our_parents[name].size()) << "missing in ember's trace";
    EXPECT_EQ(our_parents[name][nth], parent);
    for (const json* e : ours) {
      if ((*e)["name"] == name) {
        for (const auto& key : g["keys"]) EXPECT_TRUE(e->contains(key)) << key;
      }
    }
    ++compared;
  }
  EXPECT_EQ(compared, 10);  // my_block, mul, sum, 3 x 2 node ranges, and MulBackward0's mul
}

}  // namespace
}  // namespace ember::profiler
