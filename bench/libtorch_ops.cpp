// LibTorch's side of bench/compare.py: the same cases as ember_ops.cpp (see cases.h), through
// PyTorch's C++ API, answering "<name> <median seconds>" for each case name read on stdin.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <string>

namespace {

double median_seconds(const std::function<void()>& fn, int reps) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

double tiny_seconds(const std::function<void()>& fn) {
  constexpr int kBatch = 2000;
  return median_seconds([&] { for (int i = 0; i < kBatch; ++i) fn(); }, 15) / kBatch;
}

std::map<std::string, std::function<double()>> make_cases() {
  std::map<std::string, std::function<double()>> m;
  m["add_1elem"] = [] {
    torch::Tensor a = torch::randn({1}), b = torch::randn({1});
    return tiny_seconds([&] { torch::Tensor c = a + b; });
  };
  m["add_16elem"] = [] {
    torch::Tensor a = torch::randn({16}), b = torch::randn({16});
    return tiny_seconds([&] { torch::Tensor c = a + b; });
  };
  m["matmul_1024"] = [] {
    torch::Tensor a = torch::randn({1024, 1024}), b = torch::randn({1024, 1024});
    return median_seconds([&] { torch::Tensor c = torch::matmul(a, b); }, 15);
  };
  m["add_16elem_grad"] = [] {
    torch::AutoGradMode grad(true);
    torch::Tensor a = torch::randn({16}).requires_grad_(), b = torch::randn({16}).requires_grad_();
    return tiny_seconds([&] { torch::Tensor c = a + b; });
  };
  m["mlp8_step"] = [] {
    torch::AutoGradMode grad(true);
    std::vector<torch::Tensor> w, b;
    for (int i = 0; i < 3; ++i) {
      w.push_back(torch::randn({8, 8}).requires_grad_());
      b.push_back(torch::randn({8}).requires_grad_());
    }
    torch::Tensor x = torch::randn({8, 8});
    return tiny_seconds([&] {
      torch::Tensor h = torch::relu(torch::linear(x, w[0], b[0]));
      h = torch::relu(torch::linear(h, w[1], b[1]));
      torch::linear(h, w[2], b[2]).sum().backward();
    });
  };
  // CPU bfloat16 autocast from C++ (what torch.autocast("cpu") does on entry and exit).
  m["amp_matmul_16elem"] = [] {
    torch::Tensor a = torch::randn({4, 4}), b = torch::randn({4, 4});
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::increment_nesting();
    const double t = tiny_seconds([&] { torch::Tensor c = torch::matmul(a, b); });
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
    return t;
  };
  m["amp_matmul_1024_bf16"] = [] {
    torch::Tensor a = torch::randn({1024, 1024}).to(at::kBFloat16);
    torch::Tensor b = torch::randn({1024, 1024}).to(at::kBFloat16);
    return median_seconds([&] { torch::Tensor c = torch::matmul(a, b); }, 15);
  };
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  torch::NoGradGuard no_grad;
  if (argc > 1) at::set_num_threads(std::stoi(argv[1]));
  const auto table = make_cases();
  std::string name;
  while (std::cin >> name) {
    auto it = table.find(name);
    std::cout << name << " " << (it == table.end() ? std::nan("") : it->second()) << std::endl;
  }
  return 0;
}
