// The backend seam (src/backend/backend.h): a second device registered by this test runs ops
// through its own kernel table without anything in src/ops knowing it; a device without an op's
// kernel is refused by name, and no op of any family runs a host loop over a non-CPU tensor.
// The fake device's memory is host memory (the test reads it directly), its storages say cuda:0.
#include "backend/backend.h"

#include <ember/creation.h>
#include <ember/math.h>
#include <ember/nn/functional/loss.h>
#include <ember/reduce.h>
#include <ember/tensor_impl.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;
using backend::Backend;
using backend::ElementwiseCall;
using backend::ElementwiseKernel;

const Device kFakeDevice(kCUDA, 0);

// What the fake kernels were asked to do, in order: "<op>:<compute dtype>".
std::vector<std::string>& calls() {
  static std::vector<std::string> log;
  return log;
}

float* floats(const Tensor& t) { return static_cast<float*>(t.impl()->data()); }

// The fake kernels handle what the tests give them: contiguous float32 operands of one shape.
template <class Op>
void fake_map(const ElementwiseCall& c, Op op) {
  calls().push_back(std::string(c.op) + ":" + std::string(dtype_name(c.compute)));
  for (int64_t i = 0; i < c.out.numel(); ++i) op(i);
}

void fake_add(const ElementwiseCall& c) {
  const float alpha = float(c.args.scalar[0]->to_double());
  fake_map(c, [&](int64_t i) {
    floats(c.out)[i] = floats(c.in[0])[i] + alpha * floats(c.in[1])[i];
  });
}
void fake_exp(const ElementwiseCall& c) {
  fake_map(c, [&](int64_t i) { floats(c.out)[i] = std::exp(floats(c.in[0])[i]); });
}
void fake_lt(const ElementwiseCall& c) {
  bool* out = static_cast<bool*>(c.out.impl()->data());
  fake_map(c, [&](int64_t i) { out[i] = floats(c.in[0])[i] < floats(c.in[1])[i]; });
}
void fake_relu(const ElementwiseCall& c) {
  fake_map(c, [&](int64_t i) { floats(c.out)[i] = std::max(0.0f, floats(c.in[0])[i]); });
}

// Copies: same dtype, contiguous (what clone() asks of it here).
void fake_copy(const Tensor& dst, const Tensor& src) {
  calls().push_back("copy");
  std::copy(floats(src), floats(src) + src.numel(), floats(dst));
}

// Reductions: the sum of a contiguous float32 tensor over every dim (what the tests ask of it).
void fake_sum(const backend::ReduceCall& c) {
  calls().push_back(std::string(c.op));
  float total = 0;
  for (int64_t i = 0; i < c.in.numel(); ++i) total += floats(c.in)[i];
  floats(c.out)[0] = total;
}

// Scans: cumsum of a contiguous 1-d float32 tensor.
void fake_cumsum(const char* op, const Tensor& y, const Tensor& x, int64_t) {
  calls().push_back(op);
  float acc = 0;
  for (int64_t i = 0; i < x.numel(); ++i) floats(y)[i] = acc += floats(x)[i];
}

void* fake_allocate(Device, size_t nbytes) {
  return nbytes == 0 ? nullptr : std::aligned_alloc(64, (nbytes + 63) / 64 * 64);
}
void fake_free(Device, void* data, size_t) { std::free(data); }

// Installs the fake device's backend for one test; it implements add, exp, lt, relu, copy, sum
// and cumsum only.
class FakeDevice {
 public:
  FakeDevice() {
    table_.name = "fake";
    table_.allocate = &fake_allocate;
    table_.free = &fake_free;
    table_[ElementwiseKernel::add] = &fake_add;
    table_[ElementwiseKernel::exp] = &fake_exp;
    table_[ElementwiseKernel::lt] = &fake_lt;
    table_[ElementwiseKernel::relu] = &fake_relu;
    table_.copy = &fake_copy;
    table_.reduce.sum = &fake_sum;
    table_.scan.cumsum = &fake_cumsum;
    previous_ = backend::install_backend(kCUDA, &table_);
    calls().clear();
  }
  ~FakeDevice() { backend::install_backend(kCUDA, previous_); }
  FakeDevice(const FakeDevice&) = delete;
  FakeDevice& operator=(const FakeDevice&) = delete;

  // A float32 tensor on the fake device holding `values`.
  static Tensor tensor(const std::vector<float>& values) {
    Tensor t = empty({int64_t(values.size())}, {.device = kFakeDevice});
    std::copy(values.begin(), values.end(), floats(t));
    return t;
  }
  static std::vector<float> values(const Tensor& t) {
    return {floats(t), floats(t) + t.numel()};
  }

 private:
  Backend table_;
  const Backend* previous_ = nullptr;
};

TEST(Backend, AnOpRunsTheKernelOfItsOperandsDevice) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor({1, -2, 3}), b = FakeDevice::tensor({10, 20, 30});

  const Tensor sum = a + b;  // binary
  EXPECT_EQ(sum.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values(sum), (std::vector<float>{11, 18, 33}));
  const Tensor scaled = add(a, b, 2);  // the kernel gets the op's arguments
  EXPECT_EQ(FakeDevice::values(scaled), (std::vector<float>{21, 38, 63}));
  const Tensor e = a.exp();  // unary
  EXPECT_FLOAT_EQ(FakeDevice::values(e)[0], std::exp(1.0f));
  const Tensor less = a < b;  // comparison: a bool result on the device
  EXPECT_EQ(less.dtype(), kBool);
  EXPECT_EQ(less.device(), kFakeDevice);
  const Tensor r = relu(a);  // activation
  EXPECT_EQ(FakeDevice::values(r), (std::vector<float>{1, 0, 3}));
  const Tensor copied = b.clone();  // copy family
  EXPECT_EQ(copied.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values(copied), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(calls(), (std::vector<std::string>{"add:float32", "add:float32", "exp:float32",
                                               "lt:float32", "relu:float32", "copy"}));

  // The CPU's table is untouched: the same ops on CPU tensors compute there, unseen by the fake.
  calls().clear();
  EXPECT_TRUE(allclose(ones({3}) + ones({3}), full({3}, 2.0)));
  EXPECT_TRUE(calls().empty());
}

TEST(Backend, InPlaceOpsWriteThroughTheDevicesKernel) {
  FakeDevice fake;
  Tensor a = FakeDevice::tensor({1, 2, 3});
  const Tensor b = FakeDevice::tensor({1, 1, 1});
  a.add_(b);
  a.relu_();
  EXPECT_EQ(FakeDevice::values(a), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(calls(), (std::vector<std::string>{"add_:float32", "relu_:float32"}));
}

TEST(Backend, AnOpWithoutAKernelOnTheDeviceIsRefusedByName) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor({1, 2, 3}), b = FakeDevice::tensor({4, 5, 6});
  const std::string missing = "no kernel for cuda:0: the fake backend does not implement this op";
  EXPECT_ERROR(a.sqrt(), "[sqrt] " + missing);                          // unary
  EXPECT_ERROR(a * b, "[mul] " + missing);                              // binary
  EXPECT_ERROR(a == b, "[eq] " + missing);                              // comparison
  EXPECT_ERROR(sigmoid(a), "[sigmoid] " + missing);                     // activation
  EXPECT_ERROR(F::mse_loss(a, b, {.reduction = "none"}), "[mse_loss] " + missing);  // loss
  EXPECT_ERROR(a.clamp(0, 1), "[clamp] " + missing);
  EXPECT_ERROR(Tensor(a).fill_(2), "[fill_] " + missing);                 // copy family
  EXPECT_TRUE(calls().empty());  // nothing ran, nothing was half-written
}

TEST(Backend, AReductionRunsTheKernelOfItsOperandsDevice) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor({1, 2, 3.5});
  const Tensor total = a.sum();
  EXPECT_EQ(total.device(), kFakeDevice);
  EXPECT_EQ(total.dim(), 0);
  EXPECT_EQ(FakeDevice::values(total), (std::vector<float>{6.5}));
  EXPECT_EQ(calls(), (std::vector<std::string>{"sum"}));
}

TEST(Backend, AReductionWithoutAKernelOnTheDeviceIsRefusedByName) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor({1, 2, 3});
  const std::string missing = "no kernel for cuda:0: the fake backend does not implement this op";
  EXPECT_ERROR(a.amax(), "[amax] " + missing);                       // reduce.cpp
  EXPECT_ERROR(a.mean(), "[mean] " + missing);
  EXPECT_ERROR(a.var(), "[var] " + missing);
  EXPECT_ERROR(aminmax(a), "[aminmax] " + missing);
  EXPECT_ERROR(a.norm(2), "[norm] " + missing);
  EXPECT_ERROR(a.argmax(0), "[argmax] " + missing);                  // reduce_index.cpp
  EXPECT_ERROR(a.max(0), "[max] " + missing);
  EXPECT_TRUE(calls().empty());
}

TEST(Backend, AScanRunsTheKernelOfItsOperandsDevice) {
  FakeDevice fake;
  const Tensor c = FakeDevice::tensor({1, 2, 3}).cumsum(0);
  EXPECT_EQ(c.device(), kFakeDevice);
  EXPECT_EQ(FakeDevice::values(c), (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(calls(), (std::vector<std::string>{"cumsum"}));
}

TEST(Backend, SoftmaxAndScansWithoutAKernelOnTheDeviceAreRefusedByName) {
  FakeDevice fake;
  const Tensor a = FakeDevice::tensor({1, 2, 3});
  const std::string missing = "no kernel for cuda:0: the fake backend does not implement this op";
  EXPECT_ERROR(a.softmax(0), "[softmax] " + missing);  // softmax.cpp
  EXPECT_ERROR(a.log_softmax(0), "[log_softmax] " + missing);
  EXPECT_ERROR(a.cumprod(0), "[cumprod] " + missing);  // scan.cpp
  EXPECT_TRUE(calls().empty());
}

// Without any backend for its device type (a CPU-only build's CUDA tensors).
Tensor unbacked_cuda(std::vector<int64_t> sizes) {
  static std::vector<char> memory(1 << 12);
  auto storage =
      make_intrusive<StorageImpl>(memory.data(), memory.size(), kFakeDevice, nullptr, nullptr);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), kFloat32, sizes,
                                           contiguous_strides(sizes), 0));
}

TEST(Backend, ADeviceTypeWithoutABackendIsRefusedByName) {
  // A CUDA build installs a (memory-only) backend for kCUDA: take it out for this test.
  const Backend* cuda_backend = backend::install_backend(kCUDA, nullptr);
  struct Reinstall {
    const Backend* b;
    ~Reinstall() { backend::install_backend(kCUDA, b); }
  } reinstall{cuda_backend};
  const Tensor g = unbacked_cuda({2, 3});
  const std::string none = "no kernel for cuda:0: this build has no backend for its device type";
  EXPECT_ERROR(g.exp(), "[exp] " + none);
  EXPECT_ERROR(g + g, "[add] " + none);
  EXPECT_ERROR(g > 0, "[gt] " + none);
  EXPECT_ERROR(relu(g), "[relu] " + none);
}

TEST(Backend, NoFamilyRunsAHostLoopOverDeviceMemory) {
  // Families whose kernels are not yet behind the table still never read device memory as host
  // memory: their front end or data_ptr<T>() refuses, so each op ends in an ember::Error naming
  // the device (the reductions: `[sum] no kernel for cuda:0`).
  const Tensor g = unbacked_cuda({2, 3});
  const auto refused = [](const char* op, auto&& f) {
    const std::string m = test::message_of(f);
    EXPECT_NE(m.find("cuda"), std::string::npos) << op << ": " << m;
  };
  EXPECT_ERROR(g.sum(), "[sum] no kernel for cuda:0");
  EXPECT_ERROR(g.var(), "[var] no kernel for cuda:0");
  refused("sum", [&] { (void)g.sum(); });
  refused("softmax", [&] { (void)g.softmax(-1); });
  refused("sort", [&] { (void)g.sort(-1); });
  refused("cumsum", [&] { (void)g.cumsum(0); });
  refused("nonzero", [&] { (void)g.nonzero(); });
  refused("contiguous", [&] { (void)g.t().contiguous(); });
}

}  // namespace
}  // namespace ember
