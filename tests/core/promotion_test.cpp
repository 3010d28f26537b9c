// promote_types and result_type against PyTorch: golden/promotion.txt (written by
// golden/gen_dtype.py) lists torch.promote_types for all dtype pairs and torch.result_type for all
// pairs of 1-D tensors, 0-d tensors and Python scalars, under both default dtypes.
#include "golden_dir.h"
#include "ember/promotion.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/creation.h"

namespace {

using namespace ember;

Dtype parse_dtype(const std::string& name) {
  for (int i = 0; i < kNumDtypes; ++i) {
    if (name == dtype_name(Dtype(i))) return Dtype(i);
  }
  throw std::runtime_error("unknown dtype " + name);
}

Scalar parse_scalar(const std::string& literal) {
  if (literal == "True") return Scalar(true);
  if (literal == "2") return Scalar(int64_t(2));
  if (literal == "2.5") return Scalar(2.5);
  throw std::runtime_error("unknown scalar " + literal);
}

// One side of an "rt" line: kind t (1-D tensor), z (0-d tensor) or s (scalar literal).
struct Side {
  char kind;
  std::string text;
  Tensor tensor;  // for t and z
  Scalar scalar;  // for s

  Side(char k, std::string s) : kind(k), text(std::move(s)) {
    if (kind == 's') {
      scalar = parse_scalar(text);
    } else {
      tensor = empty(kind == 't' ? IntArrayRef{2} : IntArrayRef{}, {.dtype = parse_dtype(text)});
    }
  }
  Operand operand() const { return kind == 's' ? Operand(scalar) : Operand(tensor); }
  std::string str() const {
    return std::string(kind == 't' ? "tensor " : kind == 'z' ? "0-d " : "scalar ") + text;
  }
};

// Restores the default dtype however the test exits.
struct DefaultDtypeGuard {
  Dtype saved = default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

std::vector<std::string> golden_lines() {
  std::ifstream in(ember::test::golden_path("promotion.txt"));
  EXPECT_TRUE(in) << "cannot open " << ember::test::golden_path("promotion.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

TEST(PromotionGolden, PromoteTypes) {
  int checked = 0;
  for (const std::string& line : golden_lines()) {
    std::istringstream ss(line);
    std::string tag, a, b, r;
    ss >> tag >> a >> b >> r;
    if (tag != "promote") continue;
    EXPECT_EQ(promote_types(parse_dtype(a), parse_dtype(b)), parse_dtype(r)) << line;
    ++checked;
  }
  EXPECT_EQ(checked, kNumDtypes * kNumDtypes);
}

TEST(PromotionGolden, ResultType) {
  DefaultDtypeGuard guard;
  int checked = 0;
  for (const std::string& line : golden_lines()) {
    std::istringstream ss(line);
    std::string tag;
    ss >> tag;
    if (tag == "default") {
      std::string d;
      ss >> d;
      set_default_dtype(parse_dtype(d));
      continue;
    }
    if (tag != "rt") continue;
    char ka = 0, kb = 0;
    std::string a, b, r;
    ss >> ka >> a >> kb >> b >> r;
    const Side x(ka, a), y(kb, b);
    const Dtype want = parse_dtype(r);
    const std::string what =
        x.str() + " with " + y.str() + " (default " + dtype_name(default_dtype()) + ")";
    EXPECT_EQ(result_type({x.operand(), y.operand()}), want) << what;
    // The two-argument overloads must agree with the list form.
    if (ka != 's' && kb != 's') {
      EXPECT_EQ(result_type(x.tensor, y.tensor), want) << what;
    } else if (kb == 's') {
      EXPECT_EQ(result_type(x.tensor, y.scalar), want) << what;
    } else {
      EXPECT_EQ(result_type(x.scalar, y.tensor), want) << what;
    }
    ++checked;
  }
  // 20 tensors x 20 tensors + 2 x 20 x 3 tensor/scalar pairs, for each of 2 default dtypes.
  EXPECT_EQ(checked, 2 * (20 * 20 + 2 * 20 * 3));
}

TEST(Promotion, ThreeOperands) {
  const Tensor i8 = empty({2}, {.dtype = kInt8}), i16 = empty({2}, {.dtype = kInt16}),
               u8 = empty({2}, {.dtype = kUInt8}), b = empty({}, {.dtype = kBool}),
               z_u8 = empty({}, {.dtype = kUInt8}), z_i8 = empty({}, {.dtype = kInt8}),
               z_i64 = empty({}, {.dtype = kInt64}), z_f32 = empty({}, {.dtype = kFloat32}),
               z_f64 = empty({}, {.dtype = kFloat64}), z_f16 = empty({}, {.dtype = kFloat16}),
               z_bf16 = empty({}, {.dtype = kBFloat16});
  // Checked against torch.addcmul, which promotes over its three tensors.
  EXPECT_EQ(result_type({i8, z_i64, z_f64}), kFloat64);
  EXPECT_EQ(result_type({b, z_u8, z_i8}), kInt16);  // 0-d bool joins its integral 0-d peers
  EXPECT_EQ(result_type({i16, z_f32, z_f64}), kFloat64);
  EXPECT_EQ(result_type({i16, u8, z_i64}), kInt16);
  EXPECT_EQ(result_type({i16, i8, z_f32, 2.5}), kFloat32);
  // The 0-d float levels promote among themselves: float16 with bfloat16 is float32.
  EXPECT_EQ(result_type({i16, z_bf16, z_f16}), kFloat32);
  // A scalar float only lifts integers, to the default dtype, never above a 0-d float.
  EXPECT_EQ(result_type({i16, z_f16, 2.5}), kFloat16);
  EXPECT_EQ(result_type({i16, int64_t(1) << 40, true}), kInt16);
}

TEST(Promotion, ScalarsOnly) {
  EXPECT_EQ(result_type({true, false}), kBool);
  EXPECT_EQ(result_type({true, 3}), kInt64);
  EXPECT_EQ(result_type({3, 2.5}), kFloat32);
}

TEST(Promotion, UndefinedTensorsAreSkipped) {
  const Tensor undefined, i32 = empty({2}, {.dtype = kInt32});
  EXPECT_EQ(result_type({undefined, i32, 2}), kInt32);
  EXPECT_EQ(result_type({undefined, 2.5}), kFloat32);
}

TEST(Promotion, Errors) {
  try {
    result_type(std::vector<Operand>{});
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("[result_type]", 0), 0u) << e.what();
  }
  const Tensor undefined;
  EXPECT_THROW(result_type({undefined}), Error);
}

}  // namespace
