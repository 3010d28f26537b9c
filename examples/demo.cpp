// A short tour of ember's tensor core and CPU math; becomes the Fashion-MNIST trainer later.
#include <ember/ember.h>

#include <iostream>

int main() {
  using namespace ember;
  using namespace ember::indexing;

  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  std::cout << "t = " << t << "\n";
  std::cout << "sizes " << t.sizes() << ", strides " << t.strides() << ", t[1, 2] = "
            << t.index({1, 2}).item<int64_t>() << "\n";
  std::cout << "t.T() strides " << t.T().strides() << ", contiguous: " << std::boolalpha
            << t.T().is_contiguous() << " -> contiguous copy " << t.T().contiguous() << "\n";

  Tensor s = arange(12);
  Tensor a = s.view({3, 4}), b = s.view({2, 2, 3});
  s.index_put_({0}, 99);
  std::cout << "views share storage: after s[0] = 99, a[0, 0] = " << a.index({0, 0}).item<int64_t>()
            << ", b strides " << b.strides() << "\n";

  manual_seed(0);
  Tensor x = randn({3, 4});
  std::cout << "randn(3, 4) with seed 0 (the same numbers as torch.manual_seed(0)):\n" << x << "\n";
  std::cout << "x.sum(0) = " << x.sum(0) << "\nsoftmax(x, -1)[0] = " << x.softmax(-1).index({0})
            << "\nrelu(x) > 0: " << (relu(x) > 0).sum() << " elements\n";
  auto [values, indices] = x.max(1);
  std::cout << "max over dim 1: values " << values << " indices " << indices << "\n";
  return 0;
}
