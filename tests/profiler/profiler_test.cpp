// profiler::profile on programs of known structure: record_function ranges nest and self time
// is the total minus the children's, exactly; other threads (DataLoader workers) record on
// their own thread; backward nodes are named as PyTorch names them; the optimizer's step is a
// range; memory events add up to the allocator's totals; schedules hand each cycle to
// on_trace_ready; nothing is recorded outside a profile. Only orderings and containment are
// asserted, and durations no shorter than a sleep (which the clock guarantees), never timings.
#include <ember/allocator.h>
#include <ember/autograd.h>
#include <ember/creation.h>
#include <ember/data.h>
#include <ember/math.h>
#include <ember/optim.h>
#include <ember/profiler.h>
#include <ember/reduce.h>

#include <chrono>
#include <thread>

#include "profiler/recorder.h"
#include "test_support.h"

namespace ember::profiler {
namespace {

using namespace std::chrono_literals;

const Event* find(const std::vector<Event>& events, const std::string& name, size_t nth = 0) {
  for (const Event& e : events)
    if (e.name == name && nth-- == 0) return &e;
  return nullptr;
}

int64_t index_of(const std::vector<Event>& events, const Event* e) {
  return e ? int64_t(e - events.data()) : -1;
}

bool contains(const Event& outer, const Event& inner) {
  return outer.thread == inner.thread && outer.start_ns <= inner.start_ns &&
         inner.end_ns <= outer.end_ns;
}

TEST(Profiler, RecordFunctionRangesNestWithExactSelfTimes) {
  profile prof;
  {
    record_function outer("outer");
    std::this_thread::sleep_for(1ms);
    {
      record_function inner("inner");
      std::this_thread::sleep_for(2ms);
    }
    record_function second("second");
  }
  const auto& events = prof.events();
  ASSERT_EQ(events.size(), 3u);
  const Event *outer = find(events, "outer"), *inner = find(events, "inner"),
              *second = find(events, "second");
  ASSERT_TRUE(outer && inner && second);
  EXPECT_EQ(outer, &events[0]);  // ordered by start
  EXPECT_TRUE(contains(*outer, *inner));
  EXPECT_TRUE(contains(*outer, *second));
  EXPECT_LE(inner->end_ns, second->start_ns);
  EXPECT_EQ(inner->parent, 0);
  EXPECT_EQ(second->parent, 0);
  EXPECT_EQ(outer->parent, -1);
  EXPECT_EQ(outer->children, (std::vector<int64_t>{index_of(events, inner),
                                                   index_of(events, second)}));
  EXPECT_EQ(outer->self_cpu_time_total_ns,
            outer->cpu_time_total_ns - inner->cpu_time_total_ns - second->cpu_time_total_ns);
  EXPECT_EQ(inner->self_cpu_time_total_ns, inner->cpu_time_total_ns);
  EXPECT_GE(inner->cpu_time_total_ns, 2'000'000);  // slept 2 ms
  EXPECT_GE(outer->self_cpu_time_total_ns, 1'000'000);
  EXPECT_EQ(outer->kind, EventKind::UserAnnotation);

  // The table's totals are the same numbers.
  const EventAverages avg = prof.key_averages();
  ASSERT_EQ(avg.size(), 3u);
  EXPECT_EQ(avg[0].key, "outer");
  EXPECT_EQ(avg[0].self_cpu_time_total_ns, outer->self_cpu_time_total_ns);
  const std::string table = avg.table({.sort_by = "cpu_time_total"});
  EXPECT_LT(table.find("outer"), table.find("inner"));
  EXPECT_LT(table.find("inner"), table.find("second"));
}

TEST(Profiler, NothingIsRecordedOutsideAProfile) {
  { record_function before("before"); }
  EXPECT_FALSE(is_profiler_enabled());
  profile prof;
  EXPECT_TRUE(is_profiler_enabled());
  record_function straddles("straddles");  // still open at stop(): ends there
  { record_function inside("inside"); }
  prof.stop();
  EXPECT_FALSE(is_profiler_enabled());
  { record_function after("after"); }
  const auto& events = prof.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "straddles");
  EXPECT_EQ(events[1].name, "inside");
  EXPECT_TRUE(contains(events[0], events[1]));
}

TEST(Profiler, StartAgainBeginsANewRecording) {
  profile prof;
  { record_function a("first"); }
  prof.stop();
  ASSERT_EQ(prof.events().size(), 1u);
  prof.start();
  { record_function b("again"); }
  prof.stop();
  ASSERT_EQ(prof.events().size(), 1u);
  EXPECT_EQ(prof.events()[0].name, "again");
}

TEST(Profiler, OneProfileAtATime) {
  profile prof;
  const std::string m = test::message_of([] { profile second; });
  EXPECT_NE(m.find("[profiler] another profile is already recording"), std::string::npos) << m;
}

TEST(Profiler, ThreadsRecordOnTheirOwnThread) {
  profile prof;
  uint64_t main_thread = 0;
  {
    record_function main_range("main");
    std::thread t([] {
      detail::set_thread_name("helper");
      record_function r("on_helper");
      record_function nested("nested_on_helper");
    });
    t.join();
  }
  const auto& events = prof.events();
  const Event *main_range = find(events, "main"), *helper = find(events, "on_helper"),
              *nested = find(events, "nested_on_helper");
  ASSERT_TRUE(main_range && helper && nested);
  main_thread = main_range->thread;
  EXPECT_NE(helper->thread, main_thread);
  EXPECT_EQ(helper->parent, -1);  // parents are on the same thread only
  EXPECT_EQ(nested->parent, index_of(events, helper));
  EXPECT_EQ(main_range->self_cpu_time_total_ns, main_range->cpu_time_total_ns);
}

TEST(Profiler, DataLoaderWorkersAndOptimizerStep) {
  Tensor data = arange(64).reshape({16, 4}).to(kFloat32);
  Tensor target = arange(16);
  data::DataLoader<> loader(std::make_shared<data::TensorDataset>(data, target),
                            {.batch_size = 4, .num_workers = 2});
  Tensor w = zeros({4}, {.requires_grad = true});
  optim::SGD opt({w}, {.lr = 0.1});
  profile prof;
  for (auto& [x, y] : loader) {
    opt.zero_grad();
    (x * w).sum().backward();
    opt.step();
  }
  const auto& events = prof.events();
  std::set<uint64_t> worker_threads;
  uint64_t main_thread = 0;
  int steps = 0;
  for (const Event& e : events) {
    if (e.name == "DataLoader worker: fetch batch") worker_threads.insert(e.thread);
    if (e.name == "Optimizer.step#SGD.step") {
      ++steps;
      main_thread = e.thread;
    }
  }
  EXPECT_EQ(steps, 4);
  EXPECT_NE(find(events, "Optimizer.zero_grad#SGD.zero_grad"), nullptr);
  EXPECT_NE(find(events, "enumerate(DataLoader)#_DataLoaderIter.__next__"), nullptr);
  EXPECT_EQ(worker_threads.size(), 2u);  // one per worker, neither the main thread
  EXPECT_EQ(worker_threads.count(main_thread), 0u);
}

TEST(Profiler, BackwardNodesAreNamedAsPyTorchNamesThem) {
  Tensor x = ones({3});
  Tensor w = ones({3}, {.requires_grad = true});
  profile prof;
  Tensor y = (x * w).sum();
  y.backward();
  prof.stop();
  const auto& events = prof.events();
  for (const char* node : {"SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"}) {
    SCOPED_TRACE(node);
    const Event* outer = find(events, std::string("autograd::engine::evaluate_function: ") + node);
    const Event* inner = find(events, node);
    ASSERT_TRUE(outer && inner);
    EXPECT_EQ(inner->parent, index_of(events, outer));
    EXPECT_EQ(outer->kind, EventKind::Autograd);
    EXPECT_EQ(outer->parent, -1);
  }
  // Latest-created first, as PyTorch's engine: sum's node, then mul's, then the leaf's.
  EXPECT_LT(find(events, "SumBackward0")->start_ns, find(events, "MulBackward0")->start_ns);
  EXPECT_LT(find(events, "MulBackward0")->start_ns,
            find(events, "torch::autograd::AccumulateGrad")->start_ns);
}

TEST(Profiler, MemoryEventsSumToTheAllocatorsTotals) {
  const ember::CpuAllocatorStats before = cpu::allocator_stats();
  profile prof({.profile_memory = true});
  Tensor kept;
  {
    record_function r("allocate");
    kept = empty({1000});            // 4000 bytes, rounded by the allocator's size class
    { Tensor temporary = empty({10000}); }  // allocated and freed inside the range
  }
  prof.stop();
  const ember::CpuAllocatorStats after = cpu::allocator_stats();
  const auto& memory = prof.memory_events();
  ASSERT_EQ(memory.size(), 3u);
  int64_t sum = 0, total = int64_t(before.allocated_bytes);
  for (const MemoryEvent& m : memory) {
    sum += m.bytes;
    total += m.bytes;
    EXPECT_EQ(m.total_allocated, total);  // the running total after each event
    EXPECT_GE(m.total_reserved, m.total_allocated);
  }
  EXPECT_GT(memory[0].bytes, 4000 - 1);
  EXPECT_EQ(memory[1].bytes, -memory[2].bytes);
  EXPECT_EQ(sum, int64_t(after.allocated_bytes) - int64_t(before.allocated_bytes));
  const Event* range = find(prof.events(), "allocate");
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->cpu_memory_usage, sum);
  for (const MemoryEvent& m : memory) EXPECT_EQ(m.event, index_of(prof.events(), range));
  const std::string table = prof.key_averages().table();
  EXPECT_NE(table.find("CPU Mem  Self CPU Mem"), std::string::npos) << table;
}

TEST(Profiler, ScheduleHandsEachCycleToOnTraceReady) {
  std::vector<std::vector<std::string>> cycles;
  profile prof({.schedule = schedule({.wait = 1, .warmup = 1, .active = 2, .repeat = 2}),
                .on_trace_ready = [&](profile& p) {
                  std::vector<std::string> names;
                  for (const Event& e : p.events()) names.push_back(e.name);
                  cycles.push_back(names);
                }});
  for (int step = 0; step < 10; ++step) {
    { record_function r("work" + std::to_string(step)); }
    prof.step();
  }
  prof.stop();
  ASSERT_EQ(cycles.size(), 2u);
  EXPECT_EQ(cycles[0], (std::vector<std::string>{"ProfilerStep#2", "work2", "ProfilerStep#3",
                                                 "work3"}));
  EXPECT_EQ(cycles[1], (std::vector<std::string>{"ProfilerStep#6", "work6", "ProfilerStep#7",
                                                 "work7"}));
  EXPECT_EQ(prof.step_num(), 10);
}

TEST(Profiler, StopWhileActiveDeliversThePartialCycle) {
  int ready = 0;
  size_t events = 0;
  {
    profile prof({.schedule = schedule({.wait = 0, .warmup = 0, .active = 5}),
                  .on_trace_ready = [&](profile& p) {
                    ++ready;
                    events = p.events().size();
                  }});
    { record_function r("only"); }
    prof.step();
  }  // destroyed during the cycle's second step
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(events, 3u);  // ProfilerStep#0, only, ProfilerStep#1
}

TEST(Profiler, OpsThroughTheOpEntryScopeAreEventsInsideTheirRanges) {
  Tensor a = ones({2, 3}), b = ones({3}, {.dtype = kFloat64});
  profile prof({.record_shapes = true});
  Tensor c, d;
  {
    record_function block("block");
    c = a + b;
    d = c.sum();
  }
  prof.stop();
  const auto& events = prof.events();
  const Event *block = find(events, "block"), *add = find(events, "add"), *sum = find(events, "sum");
  ASSERT_TRUE(block && add && sum);
  EXPECT_EQ(add->kind, EventKind::Op);
  EXPECT_EQ(add->parent, index_of(events, block));
  EXPECT_EQ(sum->parent, index_of(events, block));
  EXPECT_LE(add->end_ns, sum->start_ns);
  EXPECT_EQ(add->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {3}}));
  EXPECT_EQ(add->input_types, (std::vector<std::string>{"float32", "float64"}));
  EXPECT_EQ(sum->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}}));
  int64_t children = 0;
  for (int64_t child : block->children) children += events[size_t(child)].cpu_time_total_ns;
  EXPECT_EQ(block->self_cpu_time_total_ns, block->cpu_time_total_ns - children);
  // Every op event closes inside its parent.
  for (const Event& e : events) {
    if (e.parent >= 0) {
      EXPECT_TRUE(contains(events[size_t(e.parent)], e)) << e.name;
    }
  }
  const std::string table = prof.key_averages({.group_by_input_shape = true}).table();
  EXPECT_NE(table.find("[[2, 3], [3]]"), std::string::npos) << table;
}

TEST(Profiler, OpsOnDataLoaderWorkersAndTheirCallSites) {
  Tensor data = arange(64).reshape({16, 4}).to(kFloat32);
  data::DataLoader<> loader(std::make_shared<data::TensorDataset>(data, arange(16)),
                            {.batch_size = 4, .num_workers = 2});
  profile prof({.with_stack = true});
  int64_t batches = 0;
  for (auto& [x, y] : loader) batches += x.size(0) > 0;
  prof.stop();
  EXPECT_EQ(batches, 4);
  const auto& events = prof.events();
  int worker_ops = 0;
  for (const Event& e : events) {
    if (e.kind != EventKind::Op || e.parent < 0) continue;
    // An op under a worker's fetch range ran on that worker's thread.
    int64_t p = e.parent;
    while (events[size_t(p)].parent >= 0) p = events[size_t(p)].parent;
    if (events[size_t(p)].name != "DataLoader worker: fetch batch") continue;
    ++worker_ops;
    EXPECT_EQ(e.thread, events[size_t(p)].thread);
    EXPECT_FALSE(e.stack.empty()) << e.name;
  }
  EXPECT_GT(worker_ops, 0);
}

TEST(Profiler, OpRangesRecordShapesTypesAndStacks) {
  // The op-entry scope's entry point, called directly.
  Tensor a = ones({2, 3}), b = zeros({3}, {.dtype = kInt64}), none;
  const Tensor* inputs[] = {&a, &b, &none};
  profile prof({.record_shapes = true, .with_stack = true});
  detail::end_range(detail::begin_op("add", inputs, 3));
  prof.stop();
  ASSERT_EQ(prof.events().size(), 1u);
  const Event& e = prof.events()[0];
  EXPECT_EQ(e.name, "add");
  EXPECT_EQ(e.kind, EventKind::Op);
  EXPECT_EQ(e.input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {3}, {}}));
  EXPECT_EQ(e.input_types, (std::vector<std::string>{"float32", "int64", ""}));
  EXPECT_FALSE(e.stack.empty());
  const std::string table = prof.key_averages({.group_by_input_shape = true}).table();
  EXPECT_NE(table.find("[[2, 3], [3], []]"), std::string::npos) << table;
  EXPECT_NE(table.find("Input Shapes"), std::string::npos);
}

}  // namespace
}  // namespace ember::profiler
