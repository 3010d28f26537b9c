// std::cout << tensor in LibTorch's format: 0-dim, 1-d, 2-d and n-d tensors of every dtype,
// the common factor line ("0.01 *"), scientific notation, integral values, column blocks for
// wide matrices, empty, undefined, non-contiguous and autograd tensors, NaN and infinities.
// The output comparison ignores spacing, so each tensor is shown a second time with its spaces
// made visible ('_') to pin LibTorch's alignment down too.
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

void show(const std::string& title, const torch::Tensor& t) {
  std::ostringstream text;
  text << t;
  std::string spaced = text.str();
  for (char& c : spaced) {
    if (c == ' ') c = '_';
  }
  std::cout << "== " << title << "\n" << t << "\n" << spaced << "\n";
}

torch::Tensor doubles(std::vector<double> values) {
  return torch::from_blob(values.data(), {static_cast<int64_t>(values.size())}, torch::kDouble)
      .clone();
}

}  // namespace

int main() {
  torch::manual_seed(2023);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  // 0-dim: the value in the stream's notation, then the type with empty sizes.
  show("0-dim float", torch::tensor(0.5));
  show("0-dim randn", torch::randn({}));
  show("0-dim double", torch::tensor(3.14159265358979, torch::kDouble));
  show("0-dim large", torch::tensor(123456789.0));
  show("0-dim small", torch::tensor(1.25e-7));
  show("0-dim long", torch::tensor(int64_t{123456789012}));
  show("0-dim int", torch::tensor(-7, torch::kInt));
  show("0-dim bool", torch::tensor(true));
  show("0-dim half", torch::tensor(0.1).to(torch::kHalf));
  show("0-dim nan", torch::tensor(nan));
  show("0-dim sum", torch::randn({3, 3}).sum());

  // 1-d: one value per line at a common width.
  show("1-d randn", torch::randn({5}));
  show("1-d rand", torch::rand({4}));
  show("1-d arange float", torch::arange(0, 5, torch::kFloat));
  show("1-d arange long", torch::arange(-3, 12));
  show("1-d one element", torch::tensor({7.0}));
  show("1-d tens", torch::randn({4}) * 30);
  show("1-d thousands", torch::randn({4}) * 3000);
  show("1-d factor 1e-02", torch::rand({4}) * 0.09);
  show("1-d factor 1e-09", torch::rand({3}) * 1e-8);
  show("1-d factor 1e+06", torch::rand({3}, torch::kDouble) * 1e6 + 1e6);
  show("1-d scientific", torch::rand({4}) * torch::tensor({1e-3, 1.0, 10.0, 1e4}));
  // LibTorch sizes the columns from the first value's magnitude and larger positive ones only.
  show("1-d negatives", torch::rand({4}) * torch::tensor({-1e-3, -1.0, -10.0, -1e4}));
  show("1-d three-digit exponents", doubles({1e-120, 1.5, -2e100}));
  show("1-d integral large", doubles({123456789.0, 2.0}));
  show("1-d integral scientific", doubles({12345678901.0, -2.0}));
  show("1-d negative first", doubles({-0.01, -0.12}));
  show("1-d negative later", doubles({-0.12, -0.01}));
  show("1-d zeros", torch::zeros({3}));
  show("1-d zero and small", doubles({0.0, 1e-5, 1.0}));
  show("1-d negative zero", doubles({-0.0, 1.5}));
  show("1-d nan inf", doubles({1.0, nan, inf, -inf}));
  show("1-d nan inf fractional", doubles({0.25, nan, -inf}));
  show("1-d all nan", doubles({nan, nan}));

  // 2-d: rows of aligned columns.
  show("2-d randn", torch::randn({3, 4}));
  show("2-d mixed widths", doubles({0.001, 1.0, 25.0, -3.0}).view({2, 2}));
  show("2-d scientific", doubles({0.01, 1.5, 250.0, -3.0}).view({2, 2}).to(torch::kFloat));
  show("2-d factor", torch::rand({4, 3}) * -0.05);
  show("2-d integral", torch::randint(-50, 50, {3, 5}));
  show("2-d one column", torch::arange(0, 3).view({3, 1}));
  show("2-d wide", torch::randn({2, 20}));
  show("2-d wide factor", torch::rand({2, 15}) * 0.003);
  show("2-d wide integral", torch::randint(0, 1000, {3, 30}));
  show("2-d wide scientific", torch::randn({2, 9}) * torch::logspace(-4, 4, 9));

  // n-d: one matrix per "(i,j,.,.) = " header, the first index varying fastest, each matrix
  // with its own format, indented by one space.
  show("3-d arange", torch::arange(0, 24, torch::kFloat).view({2, 3, 4}));
  show("3-d randn", torch::randn({2, 2, 3}));
  show("3-d per-matrix format", doubles({1.0, 2.5, 1000.0, 0.5, 1e-3, 2e-3}).view({3, 1, 2}));
  show("3-d factor", torch::rand({2, 2, 3}) * 0.001);
  show("3-d precision carried", doubles({0.5, 1.5, 123456789.0, 2.0}).view({2, 1, 2}));
  show("3-d wide", torch::randn({2, 2, 12}) * 10);
  show("4-d order", torch::arange(0, 24).view({3, 2, 2, 2}));
  show("5-d", torch::randn({1, 2, 1, 2, 2}));

  // Empty tensors show only their type and sizes.
  show("empty 1-d", torch::empty({0}));
  show("empty 2-d", torch::empty({2, 0}));
  show("empty rows", torch::empty({0, 3}, torch::kLong));
  show("empty 3-d", torch::empty({2, 0, 3}));

  // Every dtype: integral ones and bools print as integral doubles.
  show("bool", torch::rand({2, 3}) > 0.5);
  show("uint8", torch::randint(0, 256, {5}, torch::kByte));
  show("int8", torch::arange(-5, 5, torch::kChar));
  show("int16", torch::randint(-30000, 30000, {2, 3}, torch::kShort));
  show("int32", torch::randint(-100, 100, {2, 2}, torch::kInt));
  show("int64", torch::tensor({int64_t{12345678901}, int64_t{2}}));
  show("float64", torch::randn({3}, torch::kDouble));
  show("float16", torch::randn({3}).to(torch::kHalf));
  show("bfloat16", torch::randn({2, 2}).to(torch::kBFloat16));

  // Views print their values, not their storage.
  auto base = torch::arange(0, 12, torch::kFloat).view({3, 4});
  show("transposed", base.t());
  show("strided slice", base.slice(1, 0, 4, 2));
  show("row", base.select(0, 1));
  show("expanded", torch::randn({3}).expand({2, 3}));
  show("permuted", torch::randn({2, 3, 2}).permute({2, 0, 1}));

  // Autograd: nothing about gradients is printed.
  auto w = torch::randn({2, 2}, torch::requires_grad());
  show("requires_grad", w);
  auto y = (w * w).sum();
  show("grad_fn", y);
  show("undefined grad", w.grad());
  y.backward();
  show("grad", w.grad());
  show("undefined", torch::Tensor());
  return 0;
}
