// ember's side of bench/compare.py: reads case names on stdin, answers each with
// "<name> <median seconds>" after timing it (see cases.h). Unknown cases answer "<name> nan".
#include <ember/amp/autocast.h>
#include <ember/ember.h>
#include <ember/linalg.h>
#include <ember/profiler.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include "backend/family_kernel.h"
#include "cases.h"

namespace {

using namespace ember;
namespace F = ember::nn::functional;

// Median seconds per call of fn over `reps` calls (after one warm-up call).
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

// Per-call time of a tiny op, measured over a batch of calls to get above timer resolution.
double tiny_seconds(const std::function<void()>& fn) {
  constexpr int kBatch = 2000;
  return median_seconds([&] { for (int i = 0; i < kBatch; ++i) fn(); }, 15) / kBatch;
}

void add_amp_cases(std::map<std::string, std::function<double()>>& m) {
  m["amp_matmul_16elem"] = [] {
    Tensor a = randn({4, 4}), b = randn({4, 4});
    amp::autocast region(kCPU, kBFloat16);
    return tiny_seconds([&] { Tensor c = matmul(a, b); });
  };
  for (Dtype dt : {kBFloat16, kFloat16}) {
    m[std::string("amp_matmul_1024_") + (dt == kBFloat16 ? "bf16" : "fp16")] = [dt] {
      Tensor a = randn({1024, 1024}).to(dt), b = randn({1024, 1024}).to(dt);
      return median_seconds([&] { Tensor c = matmul(a, b); }, 15);
    };
  }
  for (bool bf16 : {false, true}) {
    m[bf16 ? "amp_transformer_step_bf16" : "amp_transformer_step_f32"] = [bf16] {
      nn::TransformerEncoderLayer layer(256, 8, {.dim_feedforward = 1024, .batch_first = true});
      optim::AdamW opt(layer->parameters(), {.lr = 1e-4});
      Tensor x = randn({32, 128, 256});
      return median_seconds([&] {
        opt.zero_grad();
        Tensor loss;
        {
          std::optional<amp::autocast> region;
          if (bf16) region.emplace(kCPU, kBFloat16);
          loss = layer->forward(x).pow(2).mean();
        }
        loss.backward();
        opt.step();
      }, 7);
    };
  }
}

std::map<std::string, std::function<double()>> make_cases() {
  std::map<std::string, std::function<double()>> m;
  const int64_t n16 = int64_t(1) << 24;
  m["add_16M"] = [=] {
    Tensor a = rand({n16}), b = rand({n16});
    return median_seconds([&] { Tensor c = a + b; }, 15);
  };
  m["exp_16M"] = [=] {
    Tensor a = rand({n16});
    return median_seconds([&] { Tensor c = exp(a); }, 15);
  };
  m["sigmoid_16M"] = [=] {
    Tensor a = randn({n16});
    return median_seconds([&] { Tensor c = sigmoid(a); }, 15);
  };
  m["gelu_16M"] = [=] {
    Tensor a = randn({n16});
    return median_seconds([&] { Tensor c = gelu(a); }, 15);
  };
  m["gelu_tanh_16M"] = [=] {
    Tensor a = randn({n16});
    return median_seconds([&] { Tensor c = gelu(a, {"tanh"}); }, 15);
  };
  for (const auto& [suffix, dtype] : {std::pair{"f16", kFloat16}, std::pair{"bf16", kBFloat16}}) {
    m[std::string("add_16M_") + suffix] = [=, dtype = dtype] {
      Tensor a = rand({n16}).to(dtype), b = rand({n16}).to(dtype);
      return median_seconds([&] { Tensor c = a + b; }, 15);
    };
    m[std::string("gelu_16M_") + suffix] = [=, dtype = dtype] {
      Tensor a = randn({n16}).to(dtype);
      return median_seconds([&] { Tensor c = gelu(a); }, 15);
    };
  }
  m["sum_4096x4096"] = [] {
    Tensor a = randn({4096, 4096});
    return median_seconds([&] { Tensor c = a.sum(); }, 25);
  };
  m["softmax_4096x4096"] = [] {
    Tensor a = randn({4096, 4096});
    return median_seconds([&] { Tensor c = a.softmax(-1); }, 15);
  };
  for (int n : {256, 1024, 2048}) {
    m["matmul_" + std::to_string(n)] = [n] {
      Tensor a = randn({n, n}), b = randn({n, n});
      return median_seconds([&] { Tensor c = matmul(a, b); }, n >= 2048 ? 5 : 15);
    };
  }
  m["bmm_64x128x128"] = [] {
    Tensor a = randn({64, 128, 128}), b = randn({64, 128, 128});
    return median_seconds([&] { Tensor c = bmm(a, b); }, 25);
  };
  m["conv_1to32_28x28_b128"] = [] {
    Tensor x = randn({128, 1, 28, 28}), w = randn({32, 1, 3, 3}), b = randn({32});
    return median_seconds([&] { Tensor y = F::conv2d(x, w, {.bias = b, .padding = 1}); }, 15);
  };
  m["conv_32to64_14x14_b128"] = [] {
    Tensor x = randn({128, 32, 14, 14}), w = randn({64, 32, 3, 3}), b = randn({64});
    return median_seconds([&] { Tensor y = F::conv2d(x, w, {.bias = b, .padding = 1}); }, 15);
  };
  // (cin, cout, hw): the backward rows of cases.h.
  for (auto [cin, cout, hw] : {std::array<int64_t, 3>{1, 32, 28}, {32, 64, 14}}) {
    const std::string name = "conv_" + std::to_string(cin) + "to" + std::to_string(cout) + "_" +
                             std::to_string(hw) + "x" + std::to_string(hw) + "_b128_bwd_";
    m[name + "input"] = [=] {
      Tensor g = randn({128, cout, hw, hw}), w = randn({cout, cin, 3, 3});
      return median_seconds([&] { Tensor gi = F::conv_transpose2d(g, w, {.padding = 1}); }, 15);
    };
    // No public op computes grad_weight alone: call the kernel that conv2d's backward runs.
    m[name + "weight"] = [=] {
      Tensor g = randn({128, cout, hw, hw}), x = randn({128, cin, hw, hw});
      Tensor gw = empty({cout, cin, 3, 3});
      backend::Conv2dParams p;
      p.padding[0] = p.padding[1] = 1;
      const auto weight_grad = backend::kernel("conv2d", g.device(), &backend::Backend::conv,
                                               &backend::ConvKernels::conv2d_weight_grad);
      return median_seconds([&] { weight_grad(g, x, gw, p); }, 15);
    };
  }
  m["add_1elem"] = [] {
    Tensor a = randn({1}), b = randn({1});
    return tiny_seconds([&] { Tensor c = a + b; });
  };
  m["add_16elem"] = [] {
    Tensor a = randn({16}), b = randn({16});
    return tiny_seconds([&] { Tensor c = a + b; });
  };
  for (const bool shapes : {false, true}) {
    m[shapes ? "add_16elem_profiled_shapes" : "add_16elem_profiled"] = [shapes] {
      Tensor a = randn({16}), b = randn({16});
      profiler::profile prof({.record_shapes = shapes});
      return tiny_seconds([&] { Tensor c = a + b; });
    };
  }
  m["add_16elem_grad"] = [] {
    Tensor a = randn({16}, {.requires_grad = true}), b = randn({16}, {.requires_grad = true});
    return tiny_seconds([&] { Tensor c = a + b; });
  };
  m["mlp8_step"] = [] {
    std::vector<Tensor> w, b;
    for (int i = 0; i < 3; ++i) {
      w.push_back(randn({8, 8}, {.requires_grad = true}));
      b.push_back(randn({8}, {.requires_grad = true}));
    }
    Tensor x = randn({8, 8});
    return tiny_seconds([&] {
      Tensor h = relu(F::linear(x, w[0], b[0]));
      h = relu(F::linear(h, w[1], b[1]));
      F::linear(h, w[2], b[2]).sum().backward();
    });
  };
  m["adamw_10M"] = [] {
    Tensor p = randn({10'000'000}).requires_grad_();
    p.mutable_grad() = randn({10'000'000});
    optim::AdamW opt({p}, {.lr = 1e-3, .weight_decay = 0.01});
    return median_seconds([&] { opt.step(); }, 15);
  };
  // The same 100 MB state_dict both sides write to /tmp (ember's save is atomic: temp file,
  // fsync, rename; torch.save writes in place without fsync). ember's side of save_100MB and
  // save_100MB_durable is the same call; only PyTorch's side differs (see cases.h).
  auto state_dict_100mb = [] {
    StateDict sd;
    for (int i = 0; i < 25; ++i) sd.insert("layer" + std::to_string(i) + ".weight", randn({1 << 20}));
    return sd;
  };
  const std::string path = "/tmp/ember_bench_100mb.pt";
  auto save_case = [=](SaveOptions options) {
    return [=] {
      const StateDict sd = state_dict_100mb();
      return median_seconds([&] { save(sd, path, options); }, 5);
    };
  };
  m["save_100MB"] = save_case({});
  m["save_100MB_durable"] = save_case({});
  m["save_100MB_nosync"] = save_case({.sync = false});
  m["load_100MB"] = [=] {
    save(state_dict_100mb(), path);
    return median_seconds([&] { Value v = load(path); }, 5);
  };
  m["load_100MB_copy"] = [=] {
    save(state_dict_100mb(), path);
    LoadOptions copy;
    copy.mmap = false;
    return median_seconds([&] { Value v = load(path, copy); }, 5);
  };
  m["load_100MB_touch"] = [=] {
    save(state_dict_100mb(), path);
    return median_seconds([&] {
      const Value v = load(path);
      volatile char sink = 0;
      for (const auto& [key, t] : v.to_dict()) {
        const auto* bytes = static_cast<const char*>(t.to_tensor().data_ptr());
        for (int64_t i = 0; i < t.to_tensor().nbytes(); i += 4096) sink = sink + bytes[i];
      }
    }, 5);
  };
  add_amp_cases(m);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) ember::set_num_threads(std::stoi(argv[1]));
  const auto table = make_cases();
  std::string name;
  while (std::cin >> name) {
    auto it = table.find(name);
    std::cout << name << " " << (it == table.end() ? std::nan("") : it->second()) << std::endl;
  }
  return 0;
}
