// Printing: repr(t) against PyTorch 1.13's repr() for the records in golden/print.txt (written by
// golden/gen_print.py), plus layout independence, the requires_grad suffix and operator<<.
#include "golden_dir.h"
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "ember/ember.h"

namespace ember {
namespace {

struct GoldenCase {
  std::string name, dtype, op, flags;
  std::vector<int64_t> shape;
  std::vector<std::string> values;
  std::string expected;
};

// Reads the records "case <name> <dtype> <shape> <op> <flags>\n<values>\n<repr...>\n=====".
std::vector<GoldenCase> read_golden(const std::string& path) {
  std::ifstream in(path);
  std::vector<GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("case ", 0) != 0) continue;
    GoldenCase c;
    std::string tag, shape;
    std::istringstream(line) >> tag >> c.name >> c.dtype >> shape >> c.op >> c.flags;
    for (char& ch : shape) ch = (ch == '(' || ch == ')' || ch == ',') ? ' ' : ch;
    std::istringstream shape_in(shape);
    for (int64_t s; shape_in >> s;) c.shape.push_back(s);
    std::getline(in, line);
    std::istringstream values_in(line);
    for (std::string v; values_in >> v;) c.values.push_back(v);
    std::vector<std::string> lines;
    while (std::getline(in, line) && line != "=====") lines.push_back(line);
    for (size_t i = 0; i < lines.size(); ++i) c.expected += (i ? "\n" : "") + lines[i];
    cases.push_back(std::move(c));
  }
  return cases;
}

Dtype dtype_from_name(const std::string& name) {
  for (int i = 0; i < kNumDtypes; ++i) {
    if (name == dtype_name(Dtype(i))) return Dtype(i);
  }
  ADD_FAILURE() << "unknown dtype " << name;
  return kFloat32;
}

// Floating values come as hex bit patterns of the dtype's width, integers and bools as decimals.
Tensor build(const GoldenCase& c) {
  Tensor t = empty(c.shape, {.dtype = dtype_from_name(c.dtype)});
  EXPECT_EQ(t.numel(), int64_t(c.values.size())) << c.name;
  dispatch(t.dtype(), "print_test", [&]<class T>() {
    T* p = t.data_ptr<T>();
    for (size_t i = 0; i < c.values.size(); ++i) {
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                    std::is_same_v<T, BFloat16>) {
        const uint64_t bits = std::stoull(c.values[i], nullptr, 16);
        if constexpr (sizeof(T) == 2) {
          p[i] = T::from_bits(uint16_t(bits));
        } else if constexpr (sizeof(T) == 4) {
          const uint32_t b32 = uint32_t(bits);
          std::memcpy(&p[i], &b32, 4);
        } else {
          std::memcpy(&p[i], &bits, 8);
        }
      } else {
        p[i] = T(std::stoll(c.values[i]));
      }
    }
  });
  return t;
}

TEST(Print, MatchesPyTorchGolden) {
  const std::vector<GoldenCase> cases = read_golden(ember::test::golden_path("print.txt"));
  ASSERT_GE(cases.size(), 80u) << "golden file missing or unreadable";
  for (const GoldenCase& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor t = build(c);
    if (c.op == "T") t = t.T();
    if (c.op == "step") t = t.slice(-1, std::nullopt, std::nullopt, 2);
    if (c.flags.find("rg") != std::string::npos) t.requires_grad_(true);
    const bool f64 = c.flags.find("f64") != std::string::npos;
    if (f64) set_default_dtype(kFloat64);
    const std::string got = repr(t);
    if (f64) set_default_dtype(kFloat32);
    EXPECT_EQ(got, c.expected) << "\n--- ember:\n" << got << "\n--- torch:\n" << c.expected;
  }
}

// Values of mixed sign and magnitude so every formatter mode sees a non-trivial layout.
Tensor sample(std::vector<int64_t> shape) {
  std::vector<float> v(size_t(prod(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(int64_t(i * 37 % 101) - 50) / 8.0f;
  return from_vector<float>(v, shape);
}

TEST(Print, NonContiguousPrintsLikeContiguous) {
  const Tensor a = sample({4, 6});
  const Tensor big = sample({40, 50});  // summarised
  const Tensor views[] = {
      a.T(),
      a.slice(1, 1, std::nullopt, 2),
      a.slice(0, std::nullopt, std::nullopt, 3).T(),
      a.select(0, 2),
      a.select(1, 5),
      a.narrow(1, 2, 3),
      a.index({1, 3}),
      from_vector<float>({1.5f, -2.0f}, std::vector<int64_t>{2, 1}).expand({2, 5}),
      a.unsqueeze(1).expand({4, 3, 6}),
      big.T(),
      big.slice(1, 1, std::nullopt, 2).T(),
      arange(2000).view({40, 50}).T().to(kInt16)};
  for (const Tensor& v : views) EXPECT_EQ(repr(v), repr(v.contiguous()));
  EXPECT_EQ(repr(from_vector<float>({1.5f, -2.0f}, std::vector<int64_t>{2, 1}).expand({2, 3})),
            "tensor([[ 1.5000,  1.5000,  1.5000],\n        [-2.0000, -2.0000, -2.0000]])");
}

TEST(Print, RequiresGradSuffix) {
  Tensor t = from_vector<float>({1.0f, 1.0f});
  EXPECT_EQ(repr(t), "tensor([1., 1.])");
  t.requires_grad_(true);
  EXPECT_EQ(repr(t), "tensor([1., 1.], requires_grad=True)");
  EXPECT_EQ(repr(t.detach()), "tensor([1., 1.])");
  Tensor h = from_vector<Half>({Half(1.0f), Half(1.0f)});
  h.requires_grad_(true);
  EXPECT_EQ(repr(h), "tensor([1., 1.], dtype=torch.float16, requires_grad=True)");
  // A result of a recorded op names its node instead, as PyTorch prints it.
  EXPECT_EQ(repr(t * t), "tensor([1., 1.], grad_fn=<MulBackward0>)");
  EXPECT_EQ(repr((t * t).sum()), "tensor(2., grad_fn=<SumBackward0>)");
}

TEST(Print, StreamEqualsRepr) {
  const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  std::ostringstream os;
  os << t;
  EXPECT_EQ(os.str(), repr(t));
  EXPECT_EQ(os.str(), "tensor([[1, 2, 3],\n        [4, 5, 6]])");
  EXPECT_EQ(repr(tensor(42)), "tensor(42)");
  EXPECT_EQ(repr(Tensor()), "[ Tensor (undefined) ]");
}

}  // namespace
}  // namespace ember
