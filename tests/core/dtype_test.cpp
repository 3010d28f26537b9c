// dtype properties and names, Scalar kinds and their dtypes, and Device parsing, as PyTorch has
// them (torch.float32.itemsize, str(torch.float32), torch.tensor(2.5).dtype, torch.device(...)).
#include "ember/dtype.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ember/device.h"
#include "ember/error.h"
#include "ember/scalar.h"

namespace {

using namespace ember;

TEST(Dtype, ItemsizeAndName) {
  struct Row {
    Dtype dtype;
    int64_t size;
    const char* name;
    bool floating, integral;
  };
  const Row rows[] = {
      {kBool, 1, "bool", false, false},      {kUInt8, 1, "uint8", false, true},
      {kInt8, 1, "int8", false, true},       {kInt16, 2, "int16", false, true},
      {kInt32, 4, "int32", false, true},     {kInt64, 8, "int64", false, true},
      {kFloat16, 2, "float16", true, false}, {kBFloat16, 2, "bfloat16", true, false},
      {kFloat32, 4, "float32", true, false}, {kFloat64, 8, "float64", true, false},
  };
  static_assert(std::size(rows) == kNumDtypes);
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    EXPECT_EQ(itemsize(r.dtype), r.size);
    EXPECT_STREQ(dtype_name(r.dtype), r.name);
    EXPECT_EQ(is_floating_point(r.dtype), r.floating);
    EXPECT_EQ(is_integral(r.dtype), r.integral);
    EXPECT_EQ(is_integral(r.dtype, /*include_bool=*/true), r.integral || r.dtype == kBool);
    std::ostringstream os;
    os << r.dtype;
    EXPECT_EQ(os.str(), std::string("torch.") + r.name);
  }
  // The C++ storage types have the dtype's size.
  EXPECT_EQ(sizeof(Half), 2u);
  EXPECT_EQ(sizeof(BFloat16), 2u);
  EXPECT_EQ(dtype_of<dtype_cpp<kBFloat16>::type>(), kBFloat16);
  EXPECT_EQ(dtype_of<dtype_cpp<kInt16>::type>(), kInt16);
}

TEST(Dtype, Aliases) {
  EXPECT_EQ(kFloat, kFloat32);
  EXPECT_EQ(kDouble, kFloat64);
  EXPECT_EQ(kHalf, kFloat16);
  EXPECT_EQ(kLong, kInt64);
  EXPECT_EQ(kInt, kInt32);
  EXPECT_EQ(kByte, kUInt8);
}

TEST(Dtype, DefaultDtype) {
  EXPECT_EQ(default_dtype(), kFloat32);
  set_default_dtype(kFloat64);
  EXPECT_EQ(default_dtype(), kFloat64);
  EXPECT_EQ(Scalar(2.5).dtype(), kFloat64);  // a float scalar follows the default dtype
  set_default_dtype(kFloat32);
  EXPECT_THROW(set_default_dtype(kInt64), Error);  // torch: "only floating point types"
  EXPECT_THROW(set_default_dtype(kFloat16), Error);
  EXPECT_EQ(default_dtype(), kFloat32);
}

TEST(Scalar, KindsAndDtypes) {
  const Scalar b(true), i(int64_t(7)), i32(int32_t(-3)), u8(uint8_t(200)), f(2.5), f32(1.5f),
      h(Half(0.5f)), bf(BFloat16(4.0f));
  EXPECT_TRUE(b.is_bool());
  EXPECT_EQ(b.dtype(), kBool);
  for (const Scalar& s : {i, i32, u8}) {
    EXPECT_TRUE(s.is_integral());
    EXPECT_EQ(s.dtype(), kInt64);  // a Python int is int64 whatever C++ type it came from
  }
  for (const Scalar& s : {f, f32, h, bf}) {
    EXPECT_TRUE(s.is_floating_point());
    EXPECT_EQ(s.dtype(), kFloat32);  // a Python float takes the default dtype, not float64
  }
  EXPECT_EQ(Scalar().kind(), Scalar::Kind::Int);
  EXPECT_EQ(Scalar().to_int(), 0);
  EXPECT_EQ(i32.to_int(), -3);
  EXPECT_EQ(u8.to_int(), 200);
  EXPECT_EQ(f.to_double(), 2.5);
  EXPECT_EQ(h.to_double(), 0.5);
  EXPECT_EQ(bf.to<int32_t>(), 4);
  EXPECT_EQ(Scalar(2.9).to<int64_t>(), 2);  // truncation toward zero, as int(2.9)
  EXPECT_EQ(Scalar(-2.9).to<int8_t>(), -2);
  EXPECT_TRUE(Scalar(0.5).to<bool>());
  EXPECT_FALSE(Scalar(int64_t(0)).to<bool>());
  EXPECT_EQ(Scalar(true).to<float>(), 1.0f);
  EXPECT_EQ(Scalar(int64_t(3)).to<Half>().x, Half(3.0f).x);

  std::ostringstream os;
  os << b << ' ' << Scalar(false) << ' ' << i32 << ' ' << f;
  EXPECT_EQ(os.str(), "True False -3 2.5");
}

TEST(Device, Parse) {
  const Device cpu("cpu"), cuda("cuda"), cuda1("cuda:1"), cpu0("cpu:0");
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_FALSE(cpu.has_index());
  EXPECT_EQ(cpu.str(), "cpu");
  EXPECT_TRUE(cuda.is_cuda());
  EXPECT_EQ(cuda.index(), -1);
  EXPECT_EQ(cuda.str(), "cuda");
  EXPECT_TRUE(cuda1.is_cuda());
  EXPECT_EQ(cuda1.index(), 1);
  EXPECT_EQ(cuda1.str(), "cuda:1");
  EXPECT_EQ(cpu0.index(), 0);  // torch.device("cpu:0") is allowed
  EXPECT_EQ(Device("cuda:12").index(), 12);
  EXPECT_EQ(Device(kCUDA, 1), cuda1);
  EXPECT_EQ(Device(kCUDA), cuda);
  EXPECT_FALSE(cuda == cuda1);
  std::ostringstream os;
  os << cuda1;
  EXPECT_EQ(os.str(), "cuda:1");
}

TEST(Device, BadStringsThrow) {
  for (const char* bad : {"cuda:x", "tpu", "cpu:1", "", "cuda:", "cuda:-1", "cuda:1x", "CUDA",
                          "cuda:1:2", " cpu", "gpu:0"}) {
    try {
      Device d(bad);
      ADD_FAILURE() << "Device(\"" << bad << "\") should throw, got " << d;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("[device]", 0), 0u) << bad << ": " << e.what();
    }
  }
  EXPECT_THROW(Device(kCPU, 1), Error);
  EXPECT_THROW(Device(kCUDA, -2), Error);
}

}  // namespace
