// The op-entry scope (src/core/op_entry.h): a test observer sees every op of a small training
// step with its name and input shapes; a test autocast policy changes an op's input dtypes; the
// device checks give one message for every op family (CUDA tensors in a CPU-only build are fake:
// host memory whose storage says cuda:0, which no kernel may touch).
#include "core/op_entry.h"

#include <ember/autograd.h>
#include <ember/creation.h>
#include <ember/linalg.h>
#include <ember/math.h>
#include <ember/nn/functional/layers.h>
#include <ember/nn/functional/loss.h>
#include <ember/optim/sgd.h>
#include <ember/reduce.h>
#include <ember/tensor_impl.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;

struct Event {
  std::string name;
  int depth;  // 0 for ops called by the test itself
  std::vector<std::vector<int64_t>> shapes;  // of the defined inputs
  std::vector<Dtype> dtypes;
};

// Records every op with its nesting depth; enter/exit must pair up.
class RecordingObserver final : public OpObserver {
 public:
  void on_enter(const OpCall& call) override {
    Event e{call.name, depth_++, {}, {}};
    for (const Tensor* t : call.inputs) {
      if (!t || !t->defined()) continue;
      e.shapes.emplace_back(t->sizes().begin(), t->sizes().end());
      e.dtypes.push_back(t->dtype());
    }
    events.push_back(std::move(e));
    open.push_back(call.name);
  }
  void on_exit(const char* name) override {
    ASSERT_FALSE(open.empty());
    EXPECT_EQ(open.back(), name);
    open.pop_back();
    --depth_;
  }
  std::vector<Event> top_level() const {
    std::vector<Event> out;
    for (const Event& e : events)
      if (e.depth == 0) out.push_back(e);
    return out;
  }
  std::vector<Event> events;
  std::vector<const char*> open;

 private:
  int depth_ = 0;
};

// Installs an observer for the test's lifetime.
struct Observing {
  explicit Observing(OpObserver* o) { previous = set_op_observer(o); }
  ~Observing() { set_op_observer(previous); }
  OpObserver* previous;
};

using Shapes = std::vector<std::vector<int64_t>>;

TEST(OpEntry, ObserverSeesEveryOpOfATrainingStep) {
  manual_seed(0);
  Tensor x = randn({8, 4});
  Tensor y = tensor({0, 1, 2, 0, 1, 2, 0, 1});
  Tensor w1 = randn({5, 4}).requires_grad_(), b1 = zeros({5}).requires_grad_();
  Tensor w2 = randn({3, 5}).requires_grad_(), b2 = zeros({3}).requires_grad_();
  optim::SGD opt({w1, b1, w2, b2}, {.lr = 0.1});

  RecordingObserver obs;
  {
    Observing on(&obs);
    Tensor loss = F::cross_entropy(F::linear(relu(F::linear(x, w1, b1)), w2, b2), y);
    const size_t forward_events = obs.events.size();
    loss.backward();
    const size_t backward_events = obs.events.size() - forward_events;
    opt.step();
    EXPECT_GT(backward_events, 0u);  // the backward formulas run public ops
  }
  EXPECT_TRUE(obs.open.empty());

  std::vector<Event> top = obs.top_level();
  // forward: the four ops the test called, with their inputs' shapes
  ASSERT_GE(top.size(), 4u);
  EXPECT_EQ(top[0].name, "linear");
  EXPECT_EQ(top[0].shapes, (Shapes{{8, 4}, {5, 4}, {5}}));
  EXPECT_EQ(top[1].name, "relu");
  EXPECT_EQ(top[1].shapes, (Shapes{{8, 5}}));
  EXPECT_EQ(top[2].name, "linear");
  EXPECT_EQ(top[2].shapes, (Shapes{{8, 5}, {3, 5}, {3}}));
  EXPECT_EQ(top[3].name, "cross_entropy");
  EXPECT_EQ(top[3].shapes, (Shapes{{8, 3}, {8}}));
  EXPECT_EQ(top[3].dtypes, (std::vector<Dtype>{kFloat32, kInt64}));
  // the optimizer's update: one per parameter, in order, with param, grad and no buffer
  std::vector<Shapes> updates;
  for (const Event& e : top)
    if (e.name == "sgd_update") updates.push_back(e.shapes);
  EXPECT_EQ(updates, (std::vector<Shapes>{{{5, 4}, {5, 4}}, {{5}, {5}}, {{3, 5}, {3, 5}},
                                          {{3}, {3}}}));
  // the backward's ops are seen too (the gradient of the last linear is an mm with its input)
  bool saw_mm = false;
  for (const Event& e : obs.events) saw_mm |= e.name == "mm" && e.shapes == Shapes{{3, 8}, {8, 5}};
  EXPECT_TRUE(saw_mm);
  // nothing is seen once the observer is removed
  const size_t seen = obs.events.size();
  (void)(x + 1);
  EXPECT_EQ(obs.events.size(), seen);
}

TEST(OpEntry, ObserverSeesOpsThatRecordNothingAndWrappersOnce) {
  RecordingObserver obs;
  Tensor a = ones({2, 3});
  {
    Observing on(&obs);
    (void)(a == 1);
    (void)a.sum();
    (void)zeros_like(a);
  }
  std::vector<std::string> names;
  for (const Event& e : obs.top_level()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"eq", "sum", "zeros_like"}));
}

// Every public op enters the scope under its own name, including those that record no autograd
// node: comparisons, logical and bitwise ops, creation, random, nonzero, reductions to indices.
TEST(OpEntry, ObserverSeesEveryPublicOpByName) {
  const Tensor a = arange(6.0).reshape({2, 3}), b = ones({2, 3});
  const Tensor ia = a.to(kInt64), ib = b.to(kInt64), mask = a > 1;
  Tensor filled = zeros({3});
  const std::vector<std::pair<std::string, std::function<void()>>> ops = {
      {"eq", [&] { (void)(a == b); }},
      {"ne", [&] { (void)a.ne(b); }},
      {"lt", [&] { (void)(a < 1); }},
      {"ge", [&] { (void)(a >= b); }},
      {"logical_and", [&] { (void)logical_and(a, b); }},
      {"logical_not", [&] { (void)logical_not(a); }},
      {"bitwise_xor", [&] { (void)(ia ^ ib); }},
      {"isnan", [&] { (void)a.isnan(); }},
      {"isclose", [&] { (void)isclose(a, b); }},
      {"zeros", [&] { (void)zeros({2}); }},
      {"ones", [&] { (void)ones({2}); }},
      {"full", [&] { (void)full({2}, 3.0); }},
      {"arange", [&] { (void)arange(4); }},
      {"linspace", [&] { (void)linspace(0, 1, 5); }},
      {"zeros_like", [&] { (void)zeros_like(a); }},
      {"rand", [&] { (void)rand({2}); }},
      {"randn", [&] { (void)randn({2}); }},
      {"randint", [&] { (void)randint(0, 5, {2}); }},
      {"randperm", [&] { (void)randperm(4); }},
      {"rand_like", [&] { (void)rand_like(a); }},
      {"uniform_", [&] { uniform_(filled, 0, 1); }},
      {"normal_", [&] { normal_(filled, 0, 1); }},
      {"bernoulli_", [&] { bernoulli_(filled, 0.5); }},
      {"nonzero", [&] { (void)a.nonzero(); }},
      {"exp", [&] { (void)a.exp(); }},
      {"add", [&] { (void)(a + b); }},
      {"relu", [&] { (void)relu(a); }},
      {"where", [&] { (void)where(mask, a, b); }},
      {"sum", [&] { (void)a.sum(); }},
  };
  for (const auto& [name, call] : ops) {
    RecordingObserver obs;
    {
      Observing on(&obs);
      call();
    }
    ASSERT_FALSE(obs.events.empty()) << name << " entered no scope";
    EXPECT_EQ(obs.events[0].name, name);
    EXPECT_EQ(obs.events[0].depth, 0) << name;
    EXPECT_TRUE(obs.open.empty()) << name;
  }
}

// A policy as a test writes it: one op per category.
class TestPolicy final : public AutocastPolicy {
 public:
  CastPolicy policy(const char* name, Device) const override {
    const std::string op = name;
    if (op == "mm" || op == "linear") return CastPolicy::kLowerPrecision;
    if (op == "matmul") return CastPolicy::kFloat32;
    if (op == "lerp") return CastPolicy::kPromote;
    return CastPolicy::kUntouched;
  }
  Dtype lower_precision_dtype(Device) const override { return kBFloat16; }
};

struct Autocasting {
  explicit Autocasting(const AutocastPolicy* p) { set_autocast_policy(p); }
  ~Autocasting() { set_autocast_policy(nullptr); }
};

TEST(OpEntry, AutocastPolicyChangesAnOpsInputDtypes) {
  TestPolicy policy;
  Tensor a = ones({2, 3}).requires_grad_(), b = ones({3, 4});
  Tensor h = ones({2, 3}, {.dtype = kFloat16});
  RecordingObserver obs;
  Tensor lowered, widened, promoted, untouched;
  {
    Observing on(&obs);
    Autocasting ac(&policy);
    lowered = mm(a, b);                                        // float32 -> bfloat16
    widened = matmul(h, ones({3, 2}, {.dtype = kFloat16}));   // float16 -> float32
    promoted = lerp(h, ones({2, 3}), 0.5);                     // lerp refuses mixed dtypes
    untouched = a.exp();
  }
  EXPECT_EQ(lowered.dtype(), kBFloat16);
  EXPECT_TRUE(allclose(lowered.to(kFloat32), full({2, 4}, 3.0)));
  EXPECT_EQ(widened.dtype(), kFloat32);
  EXPECT_EQ(promoted.dtype(), kFloat32);
  EXPECT_EQ(untouched.dtype(), kFloat32);
  // the observer sees mm once, with the inputs the caller gave, and the casts inside it
  std::vector<Event> top = obs.top_level();
  std::vector<std::string> names;
  for (const Event& e : top) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"mm", "ones", "matmul", "ones", "lerp", "exp"}));
  EXPECT_EQ(top[0].dtypes, (std::vector<Dtype>{kFloat32, kFloat32}));
  bool cast_inside_mm = false;  // the casts run inside the op they are for
  for (size_t i = 1; i < obs.events.size() && obs.events[i].depth > 0; ++i)
    cast_inside_mm |= obs.events[i].name == "to" || obs.events[i].name == "_to_copy";
  EXPECT_TRUE(cast_inside_mm);
  // the gradient flows back through the cast to the float32 leaf
  lowered.sum().backward();
  ASSERT_TRUE(a.grad().defined());
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  EXPECT_TRUE(allclose(a.grad(), full({2, 3}, 4.0)));
  // without the policy, the same call keeps float32; with it, a float64 input is not lowered
  EXPECT_EQ(mm(a, b).dtype(), kFloat32);
  {
    Autocasting ac(&policy);
    EXPECT_EQ(mm(a.to(kFloat64), b.to(kFloat64)).dtype(), kFloat64);
  }
}

// ── devices ──────────────────────────────────────────────────────────────────────────────────

// A float32 tensor whose storage claims to be on cuda:0 (host memory nobody may read as such).
Tensor fake_cuda(std::vector<int64_t> sizes, Dtype dtype = kFloat32) {
  static std::vector<char> memory(1 << 16);
  auto storage = make_intrusive<StorageImpl>(memory.data(), memory.size(), Device(kCUDA, 0),
                                             nullptr, nullptr);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes,
                                           contiguous_strides(sizes), 0));
}

TEST(OpEntry, MixedDevicesAreRefusedByEveryFamily) {
  const Tensor c = ones({2, 3});
  const Tensor g = fake_cuda({2, 3});
  const std::string mixed = "expected all tensors on one device, got cpu and cuda:0";
  const auto expect_mixed = [&](const char* op, auto&& f) {
    EXPECT_EQ(test::message_of(f).rfind(std::string("[") + op + "] " + mixed, 0), 0u)
        << test::message_of(f);
  };
  expect_mixed("add", [&] { (void)(c + g); });
  expect_mixed("eq", [&] { (void)(c == g); });
  expect_mixed("mm", [&] { (void)mm(c, g.t()); });
  expect_mixed("linear", [&] { (void)F::linear(c, g, Tensor()); });
  expect_mixed("cross_entropy",
               [&] { (void)F::cross_entropy(c, fake_cuda({2}, kInt64)); });
  expect_mixed("where", [&] { (void)where(c > 0, c, g); });
}

TEST(OpEntry, CudaDevicesAreCheckedAgainstEachOther) {
  const Tensor a = fake_cuda({3});
  auto storage = make_intrusive<StorageImpl>(a.impl()->data(), 12, Device(kCUDA, 1), nullptr,
                                             nullptr);
  const Tensor b(make_intrusive<TensorImpl>(std::move(storage), kFloat32, IntArrayRef{3},
                                            IntArrayRef{1}, 0));
  EXPECT_ERROR((void)(a + b), "[add] expected all tensors on one device, got cuda:0 and cuda:1");
  // a 0-d CPU tensor (a wrapped scalar) goes with any device
  const Tensor s = full({}, 2.0);
  EXPECT_NO_THROW(check_same_device("add", std::array{&a, &s}));
}

TEST(OpEntry, HostAccessToANonCpuTensorIsAnError) {
  const Tensor g = fake_cuda({1});
  EXPECT_ERROR(g.data_ptr<float>(), "[data_ptr] host access to the elements of a tensor on cuda:0");
  EXPECT_ERROR(g.item(), "expected a CPU tensor");
}

}  // namespace
}  // namespace ember
