// key_averages().table() against PyTorch 1.13's _build_table (tests/golden/gen_profiler.py
// prints tables for chosen rows; the same rows here must print the same text), and
// profiler::schedule against torch.profiler.schedule.
#include <ember/profiler.h>

#include "test_support.h"

namespace ember::profiler {
namespace {

EventAverages golden_rows(bool grouped, bool memory) {
  // The generator's ROWS, in its order; times there are microseconds.
  struct Row {
    const char* key;
    int64_t count, total_us, self_us, mem, self_mem;
    const char* shapes;
  };
  const Row rows[] = {
      {"my_block", 1, 525, 148, 16384, -16384, "[]"},
      {"autograd::engine::evaluate_function: ReluBackward0", 1, 225, 4, 0, -16384, "[[64, 64]]"},
      {"ReluBackward0", 1, 221, 179, 16384, 0, "[[64, 64]]"},
      {"aten::mm", 2, 190, 187, 32768, 32768, "[[64, 64], [64, 64]]"},
      {"aten::matmul", 1, 175, 14, 16384, 0, "[[64, 64], [64, 64]]"},
      {"aten::zeros", 3, 121, 94, 4, 0, "[[], [3]]"},
      {"a_very_long_user_annotation_name_that_the_table_must_cut_short_somewhere", 7, 2500000,
       1234567, int64_t(3) << 30, int64_t(5) << 20, "[[128, 3, 224, 224]]"},
      {"aten::add", 4, 10, 10, -2048, -2048, "[[16], [16]]"},
  };
  EventAverages out;
  out.profile_memory = memory;
  for (const Row& r : rows) {
    EventAverage a;
    a.key = r.key;
    a.count = r.count;
    a.cpu_time_total_ns = r.total_us * 1000;
    a.self_cpu_time_total_ns = r.self_us * 1000;
    a.cpu_memory_usage = r.mem;
    a.self_cpu_memory_usage = r.self_mem;
    a.input_shapes = grouped ? r.shapes : "";
    out.push_back(a);
    out.top_level.push_back(true);
  }
  return out;
}

TEST(ProfilerTable, MatchesPyTorch) {
  const auto golden = test::load_golden("profiler.json");
  ASSERT_FALSE(golden["tables"].empty());
  for (const auto& t : golden["tables"]) {
    SCOPED_TRACE(t["name"].get<std::string>());
    const auto& o = t["options"];
    TableOptions options;
    options.sort_by = o.value("sort_by", "");
    options.row_limit = o.value("row_limit", int64_t(100));
    options.max_name_column_width = o.value("max_name_column_width", int64_t(55));
    options.max_shapes_column_width = o.value("max_shapes_column_width", int64_t(80));
    options.header = o.value("header", "");
    const EventAverages rows = golden_rows(t["grouped"], t["memory"]);
    EXPECT_EQ(rows.table(options), t["text"].get<std::string>());
  }
}

TEST(ProfilerTable, RowLimitAndSortOrder) {
  const EventAverages rows = golden_rows(false, false);
  const std::string text = rows.table({.sort_by = "self_cpu_time_total", .row_limit = 2});
  // Header, two rows, footer: the two largest self times, largest first.
  const auto first = text.find("a_very_long"), second = text.find("aten::mm");
  EXPECT_NE(first, std::string::npos);
  EXPECT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_EQ(text.find("ReluBackward0"), std::string::npos);
  EXPECT_NE(text.find("\nSelf CPU time total: 1.235s\n"), std::string::npos);
}

TEST(ProfilerTable, UnknownSortKeyIsAnError) {
  const EventAverages rows = golden_rows(false, false);
  const std::string m = test::message_of([&] { (void)rows.table({.sort_by = "cpu_tme"}); });
  EXPECT_NE(m.find("[profiler] table: unknown sort_by 'cpu_tme' (expected one of"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("self_cpu_time_total"), std::string::npos) << m;
}

TEST(ProfilerTable, EmptyTableIsEmpty) { EXPECT_EQ(EventAverages().table(), ""); }

TEST(ProfilerSchedule, MatchesPyTorch) {
  const auto golden = test::load_golden("profiler.json");
  const char* names[] = {"NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"};
  ASSERT_FALSE(golden["schedules"].empty());
  for (const auto& s : golden["schedules"]) {
    const auto& c = s["config"];
    const Schedule f = schedule({.wait = c["wait"], .warmup = c["warmup"], .active = c["active"],
                                 .repeat = c.value("repeat", int64_t(0)),
                                 .skip_first = c.value("skip_first", int64_t(0))});
    for (size_t step = 0; step < s["actions"].size(); ++step)
      EXPECT_EQ(names[int(f(int64_t(step)))], s["actions"][step].get<std::string>())
          << c.dump() << " step " << step;
  }
}

TEST(ProfilerSchedule, BadArgumentsAreErrors) {
  EXPECT_NE(test::message_of([] { schedule({.active = 0}); })
                .find("[profiler] schedule expects wait, warmup, repeat, skip_first >= 0 and "
                      "active > 0, got wait=0 warmup=0 active=0"),
            std::string::npos);
}

}  // namespace
}  // namespace ember::profiler
