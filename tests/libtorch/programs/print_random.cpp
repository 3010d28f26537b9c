// LibTorch's tensor format over many random tensors: random shapes (0 to 4 dims, empty ones,
// matrices wide enough for column blocks), magnitudes from 1e-12 to 1e12, integral values,
// NaN and infinities, all ten dtypes, transposed views. Spaces are shown as '_' since the
// output comparison ignores spacing.
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The shapes and kinds come from a fixed xorshift sequence, the values from torch's generator.
uint64_t state = 88172645463325252ull;

int64_t pick(int64_t n) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return static_cast<int64_t>(state % static_cast<uint64_t>(n));
}

double power_of_ten(int64_t lo, int64_t hi) {
  return std::pow(10.0, static_cast<double>(lo + pick(hi - lo + 1)));
}

torch::Tensor random_values(const std::vector<int64_t>& sizes) {
  switch (pick(5)) {
    case 0:
      return torch::randn(sizes, torch::kDouble) * power_of_ten(-12, 12);
    case 1:
      return torch::randn(sizes, torch::kDouble) * power_of_ten(-3, 3);
    case 2:
      return torch::randint(-1000, 1000, sizes, torch::kDouble) * power_of_ten(-4, 9);
    case 3:
      return torch::randint(-3, 4, sizes, torch::kDouble);
    default:  // magnitudes spread over many orders
      return torch::rand(sizes, torch::kDouble) * power_of_ten(-6, 6) *
             torch::rand(sizes, torch::kDouble).pow(static_cast<double>(pick(20)));
  }
}

// Some NaN and infinities. Not for bfloat16: LibTorch's vectorized double-to-bfloat16
// conversion sets the sign of NaN, which ember's does not (a conversion difference, not a
// printing one).
torch::Tensor with_non_finite(torch::Tensor t, torch::Dtype dtype) {
  auto r = torch::rand(t.sizes(), torch::kDouble);
  const double inf = std::numeric_limits<double>::infinity();
  if (dtype != torch::kBFloat16) {
    t = torch::where(r < 0.1, torch::full_like(t, std::numeric_limits<double>::quiet_NaN()), t);
  }
  return torch::where(r > 0.93, torch::full_like(t, pick(2) ? inf : -inf), t);
}

// The values in the range of an integral dtype, then converted.
torch::Tensor to_dtype(torch::Tensor t, torch::Dtype dtype) {
  if (dtype == torch::kDouble) return t;
  if (dtype == torch::kFloat || dtype == torch::kHalf || dtype == torch::kBFloat16) {
    return t.to(dtype);
  }
  t = torch::nan_to_num(t, 0.0, 100.0, -100.0);
  if (dtype == torch::kBool) return t.gt(0);
  if (dtype == torch::kByte) return t.abs().clamp(0, 255).to(dtype);
  if (dtype == torch::kChar) return t.clamp(-128, 127).to(dtype);
  if (dtype == torch::kShort) return t.clamp(-30000, 30000).to(dtype);
  if (dtype == torch::kInt) return t.clamp(-2e9, 2e9).to(dtype);
  return t.clamp(-9e18, 9e18).to(dtype);
}

}  // namespace

int main() {
  torch::manual_seed(1);
  const torch::Dtype dtypes[] = {torch::kFloat, torch::kDouble, torch::kHalf,  torch::kBFloat16,
                                 torch::kLong,  torch::kInt,    torch::kShort, torch::kChar,
                                 torch::kByte,  torch::kBool};
  for (int i = 0; i < 250; ++i) {
    const int64_t dim = pick(5);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < dim; ++d) {
      const bool wide = d == dim - 1 && pick(3) == 0;
      sizes.push_back(pick(10) == 0 ? 0 : 1 + pick(wide ? 25 : 4));
    }
    torch::Tensor t = random_values(sizes);
    const torch::Dtype dtype = dtypes[pick(10)];
    if (pick(4) == 0 && t.numel() > 0) t = with_non_finite(t, dtype);
    t = to_dtype(t, dtype);
    if (dim >= 2 && pick(3) == 0) t = t.transpose(0, dim - 1);

    std::ostringstream text;
    text << t;
    std::string shown = text.str();
    for (char& c : shown) {
      if (c == ' ') c = '_';
    }
    std::cout << "#" << i << "\n" << shown << "\n";
  }
  return 0;
}
