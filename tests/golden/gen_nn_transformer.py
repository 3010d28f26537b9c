#!/usr/bin/python3
"""Writes tests/golden/nn_transformer.json: PyTorch 1.13's MultiheadAttention and Transformer
layers with the weights drawn here (the case's state_dict), in training mode with dropout 0
(deterministic) and in eval mode, with bool / float attention masks and key padding masks: the
outputs, the attention weights, the gradients of sum(out * g) (+ sum(weights * gw)) for the
inputs and every parameter, the state_dict keys and shapes, and the repr. Read by
tests/nn/transformer_test.cpp. Run with /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn

from golden_json import enc_tensor

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


def perturb(m):
    # Zero biases and unit norms would hide mistakes in their use.
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn_like(p) * 0.1)


def causal(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


def case(name, m, inputs, masks, train, call):
    """inputs: the float tensors (leaves given gradients); masks: tensors passed as they are;
    call(m, inputs, masks) -> (out, weights or None)."""
    perturb(m)
    m.train(train)
    state = {k: enc_tensor(v) for k, v in m.state_dict().items()}
    ins = {k: v.clone().requires_grad_() for k, v in inputs.items()}
    out, weights = call(m, ins, masks)
    g = torch.randn_like(out)
    loss = (out * g).sum()
    res = {"name": name, "train": train, "state_dict": state,
           "inputs": {k: enc_tensor(v) for k, v in ins.items()}, "masks": {k: enc_tensor(v) for k, v in masks.items()},
           "out": enc_tensor(out), "grad_out": enc_tensor(g)}
    if weights is not None:
        gw = torch.randn_like(weights)
        loss = loss + (weights * gw).sum()
        res["weights"] = enc_tensor(weights)
        res["grad_weights"] = enc_tensor(gw)
    loss.backward()
    res["grads"] = {**{n: enc_tensor(p.grad) for n, p in m.named_parameters()},
                    **{"input." + k: enc_tensor(v.grad) for k, v in ins.items()}}
    res["state_dict_shapes"] = [[k, list(v.shape)] for k, v in m.state_dict().items()]
    res["repr"] = repr(m)
    return res


def main():
    E, H = 8, 2
    cases = []
    x = torch.randn(3, 2, E)
    cases.append(case("mha_self_train", nn.MultiheadAttention(E, H), {"x": x}, {}, True,
                      lambda m, i, k: m(i["x"], i["x"], i["x"])))
    kpm = torch.tensor([[False, False, True, False], [False, True, True, False]])
    amask = torch.tensor([[False, True, False, False], [False, False, False, True],
                          [True, False, False, False]])
    cases.append(case("mha_cross_masks_eval", nn.MultiheadAttention(E, H, batch_first=True),
                      {"q": torch.randn(2, 3, E), "k": torch.randn(2, 4, E), "v": torch.randn(2, 4, E)},
                      {"key_padding_mask": kpm, "attn_mask": amask}, False,
                      lambda m, i, k: m(i["q"], i["k"], i["v"], key_padding_mask=k["key_padding_mask"],
                                        attn_mask=k["attn_mask"], average_attn_weights=False)))
    cases.append(case("mha_float_mask_nobias", nn.MultiheadAttention(E, H, bias=False),
                      {"q": torch.randn(3, 2, E), "kv": torch.randn(4, 2, E)},
                      {"attn_mask": torch.randn(2 * H, 3, 4), "key_padding_mask": kpm}, True,
                      lambda m, i, k: m(i["q"], i["kv"], i["kv"], attn_mask=k["attn_mask"],
                                        key_padding_mask=k["key_padding_mask"])))
    cases.append(case("mha_unbatched_no_weights", nn.MultiheadAttention(E, 4),
                      {"x": torch.randn(5, E)},
                      {"key_padding_mask": torch.tensor([False, False, False, True, False])}, False,
                      lambda m, i, k: (m(i["x"], i["x"], i["x"], key_padding_mask=k["key_padding_mask"],
                                         need_weights=False)[0], None)))
    cases.append(case("encoder_layer_causal_train",
                      nn.TransformerEncoderLayer(E, H, dim_feedforward=16, dropout=0.0),
                      {"src": torch.randn(4, 2, E)}, {"src_mask": causal(4)}, True,
                      lambda m, i, k: (m(i["src"], src_mask=k["src_mask"]), None)))
    cases.append(case("encoder_layer_norm_first_gelu_eval",
                      nn.TransformerEncoderLayer(E, H, dim_feedforward=12, activation="gelu",
                                                 layer_norm_eps=1e-6, batch_first=True, norm_first=True),
                      {"src": torch.randn(2, 4, E)}, {"src_key_padding_mask": kpm}, False,
                      lambda m, i, k: (m(i["src"], src_key_padding_mask=k["src_key_padding_mask"]), None)))
    layer = nn.TransformerEncoderLayer(E, H, dim_feedforward=16, dropout=0.0)
    cases.append(case("encoder_two_layers_norm", nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E)),
                      {"src": torch.randn(4, 2, E)},
                      {"mask": causal(4) > 0, "src_key_padding_mask": kpm}, True,
                      lambda m, i, k: (m(i["src"], mask=k["mask"], src_key_padding_mask=k["src_key_padding_mask"]),
                                       None)))
    cases.append(case("decoder_layer_train",
                      nn.TransformerDecoderLayer(E, H, dim_feedforward=16, dropout=0.0),
                      {"tgt": torch.randn(3, 2, E), "memory": torch.randn(4, 2, E)},
                      {"tgt_mask": causal(3), "memory_key_padding_mask": kpm}, True,
                      lambda m, i, k: (m(i["tgt"], i["memory"], tgt_mask=k["tgt_mask"],
                                         memory_key_padding_mask=k["memory_key_padding_mask"]), None)))
    cases.append(case("decoder_layer_norm_first_eval",
                      nn.TransformerDecoderLayer(E, H, dim_feedforward=16, activation="gelu",
                                                 batch_first=True, norm_first=True),
                      {"tgt": torch.randn(2, 3, E), "memory": torch.randn(2, 4, E)},
                      {"tgt_mask": causal(3) > 0}, False,
                      lambda m, i, k: (m(i["tgt"], i["memory"], tgt_mask=k["tgt_mask"]), None)))
    # The API.md spelling's default sizes: keys and shapes only.
    big = nn.TransformerEncoderLayer(256, 8, dim_feedforward=1024)
    extra = {"encoder_layer_256_8": [[k, list(v.shape)] for k, v in big.state_dict().items()],
             "mha_repr": repr(nn.MultiheadAttention(256, 8))}
    with open(os.path.join(HERE, "nn_transformer.json"), "w") as f:
        json.dump({"cases": cases, **extra}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
