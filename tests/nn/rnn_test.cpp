// The recurrent layers' C++ side (PyTorch's numbers are checked by the Python golden cases,
// python/tests/golden/nn/cases_rnn.py, and by the LibTorch program nn_recurrent): gradients
// against central differences, what the directions and the unbatched form mean, dropout only in
// training, parameter names, and PyTorch's error texts after ember's "[op]".
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/nn.h>

#include "test_support.h"

namespace {

using namespace ember;
namespace F = ember::nn::functional;

std::vector<std::string> parameter_names(nn::Module& m) {
  std::vector<std::string> names;
  for (const auto& p : m.named_parameters()) names.push_back(p.key());
  return names;
}

TEST(Recurrent, GradientsMatchCentralDifferences) {
  manual_seed(3);
  for (F::RnnMode mode : {F::RnnMode::kRnnTanh, F::RnnMode::kLstm, F::RnnMode::kGru}) {
    const int64_t gates = mode == F::RnnMode::kLstm ? 4 : mode == F::RnnMode::kGru ? 3 : 1;
    auto param = [](std::vector<int64_t> shape) {
      return (randn(shape, {.dtype = kFloat64}) * 0.5).requires_grad_();
    };
    Tensor x = randn({3, 2, 2}, {.dtype = kFloat64}).requires_grad_();
    Tensor w_ih = param({gates * 3, 2}), w_hh = param({gates * 3, 3});
    Tensor b_ih = param({gates * 3}), b_hh = param({gates * 3});
    Tensor w_ih_r = param({gates * 3, 2}), w_hh_r = param({gates * 3, 3});
    EXPECT_TRUE(autograd::gradcheck(
        [mode](const std::vector<Tensor>& in) {
          F::RnnOutput out = F::rnn(mode, in[0], {}, {},
                                    {{in[1], in[2], in[3], in[4]}, {in[5], in[6]}},
                                    {.bidirectional = true});
          return out.output.pow(2).sum() + out.h_n.sum() +
                 (out.c_n.defined() ? out.c_n.sum() : zeros({}, {.dtype = kFloat64}));
        },
        {x, w_ih, w_hh, b_ih, b_hh, w_ih_r, w_hh_r}));
  }
}

TEST(Recurrent, ReverseDirectionReadsTheSequenceBackwards) {
  manual_seed(4);
  nn::GRU both(2, 3, {.bidirectional = true});
  nn::GRU forward_only(2, 3);
  const auto& cells = both->cell_weights();
  {
    NoGradGuard no_grad;
    auto& w = forward_only->cell_weights()[0];
    Tensor(w.w_ih).copy_(cells[1].w_ih);
    Tensor(w.w_hh).copy_(cells[1].w_hh);
    Tensor(w.b_ih).copy_(cells[1].b_ih);
    Tensor(w.b_hh).copy_(cells[1].b_hh);
  }
  Tensor x = randn({4, 2, 2});
  auto [out, h_n] = both(x);
  auto [reversed_out, reversed_h] = forward_only(x.flip({0}));
  EXPECT_TRUE(allclose(out.narrow(2, 3, 3), reversed_out.flip({0}), 1e-6, 1e-6));
  EXPECT_TRUE(allclose(h_n[1], reversed_h[0], 1e-6, 1e-6));
}

TEST(Recurrent, UnbatchedInputIsABatchOfOne) {
  manual_seed(5);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .batch_first = true, .proj_size = 2});
  Tensor x = randn({5, 3});
  auto [out, state] = lstm(x);
  auto [batched_out, batched_state] = lstm(x.unsqueeze(0));
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(std::get<1>(state).sizes().vec(), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(out.equal(batched_out[0]));
  EXPECT_TRUE(std::get<0>(state).equal(std::get<0>(batched_state).squeeze(1)));
}

TEST(Recurrent, DropoutBetweenLayersOnlyWhenTraining) {
  manual_seed(6);
  nn::RNN rnn(3, 4, {.num_layers = 2, .dropout = 0.9});
  Tensor x = randn({6, 2, 3});
  rnn->eval();
  Tensor a = std::get<0>(rnn(x)), b = std::get<0>(rnn(x));
  EXPECT_TRUE(a.equal(b));
  rnn->train();
  EXPECT_FALSE(std::get<0>(rnn(x)).equal(a));
}

TEST(Recurrent, ParameterNamesAndRepr) {
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bias = false, .bidirectional = true, .proj_size = 2});
  EXPECT_EQ(parameter_names(*lstm),
            (std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "weight_hr_l0",
                                      "weight_ih_l0_reverse", "weight_hh_l0_reverse",
                                      "weight_hr_l0_reverse", "weight_ih_l1", "weight_hh_l1",
                                      "weight_hr_l1", "weight_ih_l1_reverse",
                                      "weight_hh_l1_reverse", "weight_hr_l1_reverse"}));
  EXPECT_EQ(lstm->cell_weights()[2].w_ih.sizes().vec(), (std::vector<int64_t>{16, 4}));
  EXPECT_EQ(lstm->repr(),
            "LSTM(3, 4, proj_size=2, num_layers=2, bias=False, bidirectional=True)");
  EXPECT_EQ(nn::RNNCell(3, 4, {.nonlinearity = "relu"})->repr(),
            "RNNCell(3, 4, nonlinearity=relu)");
  EXPECT_EQ(parameter_names(*nn::GRUCell(3, 4)),
            (std::vector<std::string>{"weight_ih", "weight_hh", "bias_ih", "bias_hh"}));
}

TEST(Recurrent, ErrorsSayWhatPyTorchSays) {
  nn::LSTM lstm(3, 4);
  EXPECT_ERROR(lstm(randn({2, 5, 6})),
               "[LSTM] input.size(-1) must be equal to input_size. Expected 3, got 6");
  EXPECT_ERROR(lstm(randn({2, 5, 3}), std::tuple{zeros({1, 5, 4}), zeros({1, 4, 4})}),
               "[LSTM] Expected hidden[1] size (1, 5, 4), got [1, 4, 4]");
  EXPECT_ERROR(lstm(randn({5, 3}), std::tuple{zeros({1, 5, 4}), zeros({1, 4, 4})}),
               "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors");
  EXPECT_ERROR(lstm(randn({2, 2, 2, 3})), "[LSTM] input must have 3 dimensions, got 5");
  nn::GRU gru(3, 4);
  EXPECT_ERROR(gru(randn({5, 2, 3}), zeros({2, 2, 4})),
               "[GRU] Expected hidden size (1, 2, 4), got [2, 2, 4]");
  EXPECT_ERROR(gru(randn({5, 3}), zeros({1, 1, 4})),
               "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor");
  nn::GRUCell cell(3, 4);
  EXPECT_ERROR(cell(randn({5, 2})), "[GRUCell] input has inconsistent input_size: got 2 expected 3");
  EXPECT_ERROR(cell(randn({5, 3}), zeros({4, 4})),
               "Input batch size 5 doesn't match hidden0 batch size 4");
  EXPECT_ERROR(nn::LSTMCell(3, 4)(randn({5, 3}), std::tuple{zeros({5, 4}), zeros({5, 3})}),
               "hidden1 has inconsistent hidden_size: got 3, expected 4");
  EXPECT_ERROR(nn::RNN(3, 4, {.nonlinearity = "foo"}), "Unknown nonlinearity 'foo'");
  EXPECT_ERROR(nn::LSTM(3, 4, {.proj_size = 4}), "proj_size has to be smaller than hidden_size");
  EXPECT_ERROR(F::rnn(F::RnnMode::kGru, randn({2, 1, 3}), {}, {}, lstm->cell_weights()),
               "expects weight_ih (G*H, in) and weight_hh (G*H, H) with G = 3");
}

}  // namespace
