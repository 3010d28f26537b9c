#!/usr/bin/python3
"""Writes tests/golden/nn_losses.json: PyTorch 1.13's loss modules (criterion(*inputs)) with
their options, the loss, the gradients of sum(loss * grad_out) for every floating input, the
state_dict keys (weights are buffers) and the repr. Read by tests/nn/loss_test.cpp.
Run with /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn

from golden_json import enc_tensor

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


def case(name, module, options, *inputs):
    """options: the constructor keywords (tensors exported as enc_tensor()); inputs: the predictions get
    gradients, the target (the last input, except for TripletMarginLoss's three embeddings)
    does not."""
    n_pred = len(inputs) if module is nn.TripletMarginLoss else len(inputs) - 1
    ins = [x.clone().requires_grad_() if i < n_pred else x for i, x in enumerate(inputs)]
    crit = module(**options)
    out = crit(*ins)
    g = torch.randn_like(out)
    (out * g).sum().backward()
    return {"name": name, "options": {k: (enc_tensor(v) if torch.is_tensor(v) else v) for k, v in options.items()},
            "inputs": [enc_tensor(x) for x in ins], "out": enc_tensor(out), "grad_out": enc_tensor(g),
            "grads": [enc_tensor(x.grad) for x in ins[:n_pred]],
            "state_dict_keys": list(crit.state_dict().keys()), "repr": repr(crit)}


def sign(n):
    return torch.randint(0, 2, (n,)).float() * 2 - 1


def main():
    logits = torch.randn(4, 5)
    cases = [
        case("cross_entropy", nn.CrossEntropyLoss, {}, logits, torch.tensor([1, 0, 4, 2])),
        case("cross_entropy_weight_ignore_smooth", nn.CrossEntropyLoss,
             {"weight": torch.rand(5) + 0.5, "ignore_index": 2, "label_smoothing": 0.1},
             torch.randn(4, 5), torch.tensor([1, 2, 4, 3])),
        case("cross_entropy_probs", nn.CrossEntropyLoss, {"label_smoothing": 0.2},
             torch.randn(4, 5), torch.softmax(torch.randn(4, 5), 1)),
        case("cross_entropy_probs_weight_sum", nn.CrossEntropyLoss,
             {"weight": torch.rand(3) + 0.5, "reduction": "sum"},
             torch.randn(2, 3), torch.softmax(torch.randn(2, 3), 1)),
        case("cross_entropy_spatial_none", nn.CrossEntropyLoss, {"reduction": "none"},
             torch.randn(2, 3, 2, 2), torch.randint(0, 3, (2, 2, 2))),
        case("cross_entropy_unbatched", nn.CrossEntropyLoss, {}, torch.randn(4), torch.tensor(3)),
        case("nll", nn.NLLLoss, {"weight": torch.rand(4) + 0.5},
             torch.log_softmax(torch.randn(3, 4), 1), torch.tensor([0, 3, 1])),
        case("nll_ignore_none", nn.NLLLoss, {"ignore_index": 1, "reduction": "none"},
             torch.log_softmax(torch.randn(3, 4), 1), torch.tensor([1, 3, 2])),
        case("mse", nn.MSELoss, {}, torch.randn(3, 4), torch.randn(3, 4)),
        case("mse_sum_broadcast", nn.MSELoss, {"reduction": "sum"}, torch.randn(3, 4), torch.randn(4)),
        case("l1", nn.L1Loss, {}, torch.randn(2, 5), torch.randn(2, 5)),
        case("l1_none", nn.L1Loss, {"reduction": "none"}, torch.randn(6), torch.randn(6)),
        case("smooth_l1", nn.SmoothL1Loss, {"beta": 0.5}, torch.randn(3, 4), torch.randn(3, 4)),
        case("huber_sum", nn.HuberLoss, {"delta": 1.5, "reduction": "sum"}, 2 * torch.randn(3, 4),
             torch.randn(3, 4)),
        case("bce_weight", nn.BCELoss, {"weight": torch.rand(3)},
             torch.sigmoid(torch.randn(2, 3)), torch.rand(2, 3)),
        case("bce_none", nn.BCELoss, {"reduction": "none"}, torch.sigmoid(torch.randn(5)),
             torch.randint(0, 2, (5,)).float()),
        case("bce_logits_pos_weight", nn.BCEWithLogitsLoss, {"pos_weight": torch.rand(3) * 2},
             torch.randn(4, 3), torch.randint(0, 2, (4, 3)).float()),
        case("bce_logits_weight_sum", nn.BCEWithLogitsLoss,
             {"weight": torch.rand(2, 3), "reduction": "sum"}, 3 * torch.randn(2, 3), torch.rand(2, 3)),
        case("kl_div_batchmean", nn.KLDivLoss, {"reduction": "batchmean"},
             torch.log_softmax(torch.randn(3, 4), 1), torch.softmax(torch.randn(3, 4), 1)),
        case("kl_div_log_target_sum", nn.KLDivLoss, {"reduction": "sum", "log_target": True},
             torch.log_softmax(torch.randn(3, 4), 1), torch.log_softmax(torch.randn(3, 4), 1)),
        case("kl_div_mean", nn.KLDivLoss, {}, torch.log_softmax(torch.randn(2, 3), 1),
             torch.softmax(torch.randn(2, 3), 1)),
        case("cosine_embedding", nn.CosineEmbeddingLoss, {"margin": 0.2}, torch.randn(4, 5),
             torch.randn(4, 5), torch.tensor([1.0, -1.0, 1.0, -1.0])),
        case("cosine_embedding_none", nn.CosineEmbeddingLoss, {"reduction": "none"}, torch.randn(3, 2),
             torch.randn(3, 2), torch.tensor([-1.0, -1.0, 1.0])),
        case("margin_ranking", nn.MarginRankingLoss, {"margin": 0.1}, torch.randn(6), torch.randn(6), sign(6)),
        case("margin_ranking_sum", nn.MarginRankingLoss, {"reduction": "sum"}, torch.randn(5),
             torch.randn(5), sign(5)),
        case("triplet", nn.TripletMarginLoss, {}, torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3)),
        case("triplet_swap_p1_none", nn.TripletMarginLoss,
             {"margin": 0.5, "p": 1.0, "swap": True, "reduction": "none"},
             torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3)),
    ]
    with open(os.path.join(HERE, "nn_losses.json"), "w") as f:
        json.dump({"cases": cases}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
