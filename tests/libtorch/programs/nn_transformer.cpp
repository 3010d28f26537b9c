// torch::nn's attention and transformer layers with LibTorch's options and forward
// signatures: MultiheadAttention (masks positional), TransformerEncoderLayer, TransformerEncoder
// (copies of a layer, a final LayerNorm as AnyModule), TransformerDecoderLayer, TransformerDecoder,
// the whole Transformer with generate_square_subsequent_mask; training steps.
#include <torch/torch.h>

#include <cstdio>
#include <string>

namespace nn = torch::nn;

static void show(const char* name, const torch::Tensor& y) {
  std::printf("%-30s sizes", name);
  for (int64_t s : y.sizes()) std::printf(" %lld", static_cast<long long>(s));
  std::printf("  sum %.5f  abs %.5f\n", y.sum().item<float>(), y.abs().sum().item<float>());
}

int main() {
  torch::manual_seed(6);
  const int64_t d_model = 8, heads = 2, seq_len = 5, batch = 3;

  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(d_model, heads));
  auto q = torch::randn({seq_len, batch, d_model});
  auto kv = torch::randn({4, batch, d_model});
  auto [out, weights] = mha(q, kv, kv);
  show("MHA out", out);
  show("MHA weights", weights);
  auto pad = torch::zeros({batch, 4}, torch::kBool);
  pad.index_put_({0, 3}, true);
  auto causal = torch::ones({seq_len, 4}).triu(1).to(torch::kBool);
  auto masked = mha->forward(q, kv, kv, pad, /*need_weights=*/true, causal,
                             /*average_attn_weights=*/false);
  show("MHA masked out", std::get<0>(masked));
  show("MHA per-head weights", std::get<1>(masked));
  auto w = std::get<1>(masked);
  std::printf("MHA weights by position %.4f\n",
              (w * torch::arange(w.numel()).view(w.sizes())).sum().item<float>());
  std::printf("MHA options: embed_dim %lld heads %lld dropout %.1f, in_proj %lld x %lld\n",
              static_cast<long long>(mha->options.embed_dim()),
              static_cast<long long>(mha->options.num_heads()), mha->options.dropout(),
              static_cast<long long>(mha->in_proj_weight.size(0)),
              static_cast<long long>(mha->in_proj_weight.size(1)));

  nn::TransformerEncoderLayer layer(
      nn::TransformerEncoderLayerOptions(d_model, heads).dim_feedforward(16).dropout(0.0));
  auto src = torch::randn({seq_len, batch, d_model});
  show("EncoderLayer", layer(src));
  auto src_mask = torch::zeros({seq_len, seq_len})
                      .masked_fill(torch::ones({seq_len, seq_len}).triu(1).to(torch::kBool), -1e9);
  show("EncoderLayer(masked)", layer(src, src_mask));
  auto src_pad = torch::zeros({batch, seq_len}, torch::kBool);
  src_pad.index_put_({1, 4}, true);
  show("EncoderLayer(bool masks)",
       layer(src, torch::ones({seq_len, seq_len}).triu(1).to(torch::kBool), src_pad));
  nn::TransformerEncoderLayer gelu_layer(nn::TransformerEncoderLayerOptions(d_model, heads)
                                             .dim_feedforward(12)
                                             .dropout(0.0)
                                             .activation(torch::kGELU));
  show("EncoderLayer(gelu)", gelu_layer(src));

  nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(layer, 2).norm(
      nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({d_model})))));
  show("Encoder(2 layers, norm)", encoder(src));
  nn::TransformerEncoder plain(gelu_layer, 3);
  show("Encoder(3 layers)", plain(src, src_mask));
  std::printf("encoder parameters %zu, plain parameters %zu\n", encoder->parameters().size(),
              plain->parameters().size());

  nn::TransformerDecoderLayer decoder(
      nn::TransformerDecoderLayerOptions(d_model, heads).dim_feedforward(16).dropout(0.0));
  auto memory = encoder(src);
  auto tgt = torch::randn({4, batch, d_model});
  show("DecoderLayer", decoder(tgt, memory));
  auto tgt_mask =
      torch::zeros({4, 4}).masked_fill(torch::ones({4, 4}).triu(1).to(torch::kBool), -1e9);
  show("DecoderLayer(tgt_mask)", decoder(tgt, memory, tgt_mask));

  // One training step through encoder and decoder.
  std::vector<torch::Tensor> params = encoder->parameters();
  for (const auto& p : decoder->parameters()) params.push_back(p);
  torch::optim::SGD sgd(params, /*lr=*/0.05);
  for (int step = 0; step < 3; ++step) {
    sgd.zero_grad();
    auto loss = decoder(tgt, encoder(src)).pow(2).mean();
    loss.backward();
    sgd.step();
    std::printf("step %d loss %.5f\n", step, loss.item<float>());
  }
  show("draw after", torch::randn({4}));

  // TransformerDecoder (copies of a decoder layer, a final norm) and the whole Transformer with
  // a causal mask; each construction draws as LibTorch's does, so later draws line up too.
  nn::TransformerDecoder stack(
      nn::TransformerDecoderOptions(decoder, 2).norm(
          nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({d_model})))));
  show("Decoder(2 layers, norm)", stack(tgt, memory, tgt_mask));
  std::printf("decoder parameters %zu\n", stack->parameters().size());
  show("draw after decoder", torch::randn({4}));
  nn::Transformer model(nn::TransformerOptions(d_model, heads, 2, 1).dim_feedforward(16).dropout(0.0));
  auto square_mask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  show("square subsequent mask", square_mask);
  show("Transformer", model(src, tgt));
  show("Transformer(tgt_mask)", model->forward(src, tgt, {}, square_mask));
  for (const auto& item : model->named_parameters()) {
    if (item.key().find("layers.0") != std::string::npos || item.key().find("norm.") == 0)
      std::printf("%s %.5f\n", item.key().c_str(), item.value().sum().item<float>());
  }
  std::printf("transformer parameters %zu\n", model->parameters().size());
  torch::optim::Adam adam(model->parameters(), 1e-3);
  for (int step = 0; step < 2; ++step) {
    adam.zero_grad();
    auto loss = model->forward(src, tgt, {}, square_mask).pow(2).mean();
    loss.backward();
    adam.step();
    std::printf("transformer step %d loss %.5f\n", step, loss.item<float>());
  }
  show("draw after transformer", torch::randn({4}));
  return 0;
}
