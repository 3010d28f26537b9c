// A short tour of what ember can do today; replaced by the Fashion-MNIST trainer later.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  using namespace ember::indexing;
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  std::cout << "t = " << t << "\n";
  std::cout << "t.sizes() = " << t.sizes() << ", t.strides() = " << t.strides() << "\n";
  std::cout << "t.T() = " << t.T() << " strides " << t.T().strides()
            << " contiguous: " << std::boolalpha << t.T().is_contiguous() << "\n";
  Tensor s = arange(12);
  Tensor a = s.view({3, 4});
  s.index_put_({0}, 99);
  std::cout << "after s[0] = 99, a[0, 0] = " << a.index({0, 0}).item<int64_t>() << "\n";
  std::cout << "linspace(0, 1, 5) = " << linspace(0, 1, 5) << "\n";
  manual_seed(0);
  std::cout << "randn({2, 3}) with seed 0 = " << randn({2, 3}) << "\n";
  return 0;
}
