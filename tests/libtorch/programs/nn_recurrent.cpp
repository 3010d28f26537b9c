// torch::nn's recurrent layers with LibTorch's options and forward signatures: RNN (tanh and
// relu), LSTM (state tuple, projections), GRU, bidirectional and stacked layers, batch_first,
// the cells, printing, parameter names, a few training steps of a sequence classifier, and its
// children found again through as<T>(); Module::zero_grad zeroes (LibTorch 1.13's default);
// multinomial and exponential_ draw LibTorch's numbers.
#include <torch/torch.h>

#include <cstdio>
#include <tuple>

namespace nn = torch::nn;

static void show(const char* name, const torch::Tensor& y) {
  std::printf("%-28s sizes", name);
  for (int64_t s : y.sizes()) std::printf(" %lld", static_cast<long long>(s));
  std::printf("  sum %.5f  abs %.5f\n", y.sum().item<float>(), y.abs().sum().item<float>());
}

// A sequence classifier as LibTorch tutorials write it: an LSTM over (B, T, in), the last
// step's output through a Linear.
struct ClassifierImpl : nn::Module {
  ClassifierImpl(int64_t in, int64_t hidden, int64_t layers, int64_t classes)
      : lstm(nn::LSTMOptions(in, hidden).num_layers(layers).batch_first(true)),
        fc(hidden, classes) {
    register_module("lstm", lstm);
    register_module("fc", fc);
  }
  torch::Tensor forward(torch::Tensor x) {
    auto h0 = torch::zeros({lstm->options.num_layers(), x.size(0), lstm->options.hidden_size()});
    auto c0 = torch::zeros_like(h0);
    auto out = std::get<0>(lstm->forward(x, std::make_tuple(h0, c0)));
    return fc->forward(out.index({torch::indexing::Slice(), -1, torch::indexing::Slice()}));
  }
  nn::LSTM lstm;
  nn::Linear fc;
};
TORCH_MODULE(Classifier);

int main() {
  torch::manual_seed(11);
  const int64_t T = 5, B = 3, I = 4, H = 6;
  auto x = torch::randn({T, B, I});

  nn::RNN rnn(nn::RNNOptions(I, H).num_layers(2).nonlinearity(torch::kReLU));
  auto [rnn_out, rnn_h] = rnn(x);
  show("RNN(relu, 2 layers) out", rnn_out);
  show("RNN h_n", rnn_h);
  std::cout << rnn << "\n";

  nn::LSTM lstm(nn::LSTMOptions(I, H).bidirectional(true));
  auto [lstm_out, lstm_state] = lstm(x);
  show("LSTM bidirectional out", lstm_out);
  show("LSTM h_n", std::get<0>(lstm_state));
  show("LSTM c_n", std::get<1>(lstm_state));
  for (const auto& p : lstm->named_parameters())
    std::printf("  %-22s %lld x %lld\n", p.key().c_str(), static_cast<long long>(p.value().size(0)),
                static_cast<long long>(p.value().dim() > 1 ? p.value().size(1) : 1));
  std::cout << lstm << "\n";

  nn::LSTM projected(nn::LSTMOptions(I, H).proj_size(2).num_layers(2));
  auto h0 = torch::randn({2, B, 2}), c0 = torch::randn({2, B, H});
  auto projected_out = projected->forward(x, std::make_tuple(h0, c0));
  show("LSTM proj_size=2 out", std::get<0>(projected_out));
  show("LSTM proj h_n", std::get<0>(std::get<1>(projected_out)));
  std::cout << projected << "\n";

  nn::GRU gru(nn::GRUOptions(I, H).batch_first(true).bias(false));
  auto xb = torch::randn({B, T, I});
  auto [gru_out, gru_h] = gru(xb, torch::ones({1, B, H}));
  show("GRU batch_first out", gru_out);
  show("GRU h_n", gru_h);
  std::cout << gru << "\n";

  nn::RNNCell rnn_cell(nn::RNNCellOptions(I, H).nonlinearity(torch::kTanh));
  nn::LSTMCell lstm_cell(I, H);
  nn::GRUCell gru_cell(nn::GRUCellOptions(I, H).bias(false));
  auto h = rnn_cell(x[0]);
  auto hc = lstm_cell(x[0]);
  auto g = gru_cell(x[0], torch::zeros({B, H}));
  for (int64_t t = 1; t < T; ++t) {
    h = rnn_cell(x[t], h);
    hc = lstm_cell(x[t], hc);
    g = gru_cell(x[t], g);
  }
  show("RNNCell h", h);
  show("LSTMCell h", std::get<0>(hc));
  show("LSTMCell c", std::get<1>(hc));
  show("GRUCell h", g);
  std::cout << rnn_cell << "\n" << lstm_cell << "\n" << gru_cell << "\n";

  Classifier model(I, 8, 2, 3);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
  auto inputs = torch::randn({16, T, I});
  auto labels = torch::randint(0, 3, {16});
  for (int step = 0; step < 5; ++step) {
    optimizer.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model(inputs), labels);
    loss.backward();
    optimizer.step();
    std::printf("step %d loss %.5f\n", step, loss.item<float>());
  }
  show("trained fc weight", model->fc->weight);
  model->zero_grad();
  std::printf("after module zero_grad: grad defined %d, |grad| %.1f\n",
              int(model->fc->weight.grad().defined()),
              model->fc->weight.grad().abs().sum().item<float>());
  {
    // Sampling from the classifier's probabilities, as language models generate text.
    torch::NoGradGuard no_grad;
    auto probs = torch::softmax(model(inputs), 1);
    auto one = probs.multinomial(1);
    auto many = probs.multinomial(6, /*replacement=*/true);
    auto noise = torch::empty({3}).exponential_(2.0);
    std::printf("sampled: one per row sum %lld, row 0 with replacement",
                static_cast<long long>(one.sum().item<int64_t>()));
    for (int64_t i = 0; i < 6; ++i)
      std::printf(" %lld", static_cast<long long>(many[0][i].item<int64_t>()));
    std::printf(", all %lld, exponential %.6f %.6f %.6f\n",
                static_cast<long long>(many.sum().item<int64_t>()), noise[0].item<float>(),
                noise[1].item<float>(), noise[2].item<float>());
  }
  for (const auto& child : model->children()) {
    if (auto* recurrent = child->as<nn::LSTM>())
      std::printf("child LSTM: hidden_size %lld, %zu weights\n",
                  static_cast<long long>(recurrent->options.hidden_size()),
                  recurrent->all_weights().size());
    if (auto* linear = child->as<nn::LinearImpl>())
      std::printf("child Linear: %lld -> %lld\n",
                  static_cast<long long>(linear->options.in_features()),
                  static_cast<long long>(linear->options.out_features()));
  }
}
