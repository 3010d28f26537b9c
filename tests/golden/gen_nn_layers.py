#!/usr/bin/python3
"""Writes tests/golden/nn_layers.json: PyTorch 1.13's layer modules with the weights drawn here
(exported in the case's state_dict), their forward output, gradients of sum(out * grad_out)
with respect to the input and every parameter, the buffers after the call (BatchNorm's running
stats) and each layer's repr. Read by tests/nn/layers_test.cpp. Run with /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)


def t(x):
    return {"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", ""),
            "data": x.detach().flatten().tolist()}


def case(name, layer, x, train=True, calls=1):
    # Perturb floating state so that ones/zeros defaults do not hide mistakes.
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    before = {k: t(v) for k, v in layer.state_dict().items()}
    layer.train(train)
    for _ in range(calls - 1):
        layer(x)
    if x.is_floating_point():
        x = x.clone().requires_grad_()
    out = layer(x)
    g = torch.randn_like(out)
    (out * g).sum().backward()
    grads = {n: t(p.grad) for n, p in layer.named_parameters()}
    if x.requires_grad:
        grads["input"] = t(x.grad)
    return {"name": name, "train": train, "calls": calls, "state_dict": before, "input": t(x),
            "out": t(out), "grad_out": t(g), "grads": grads,
            "buffers_after": {n: t(b) for n, b in layer.named_buffers()}, "repr": repr(layer)}


def main():
    cases = [
        case("linear", nn.Linear(4, 3), torch.randn(5, 4)),
        case("linear_nobias", nn.Linear(4, 3, bias=False), torch.randn(2, 3, 4)),
        case("layer_norm", nn.LayerNorm(6), torch.randn(3, 6)),
        case("group_norm", nn.GroupNorm(2, 4), torch.randn(2, 4, 3)),
        case("batch_norm1d_train", nn.BatchNorm1d(3), torch.randn(6, 3), calls=2),
        case("batch_norm1d_cumulative", nn.BatchNorm1d(3, momentum=None), torch.randn(4, 3, 2), calls=3),
        case("batch_norm2d_eval", nn.BatchNorm2d(2), torch.randn(2, 2, 3, 3), train=False),
        case("batch_norm2d_no_stats", nn.BatchNorm2d(2, affine=False, track_running_stats=False),
             torch.randn(2, 2, 2, 2)),
        case("embedding_padding", nn.Embedding(6, 3, padding_idx=1), torch.tensor([[0, 1, 5], [1, 2, 0]])),
        case("gelu_tanh", nn.GELU(approximate="tanh"), torch.randn(7)),
        case("leaky_relu", nn.LeakyReLU(0.2), torch.randn(7)),
        case("elu", nn.ELU(0.5), torch.randn(7)),
        case("softplus", nn.Softplus(beta=2.0, threshold=1.0), torch.randn(7)),
        case("softmax", nn.Softmax(dim=1), torch.randn(2, 5)),
        case("log_softmax", nn.LogSoftmax(dim=0), torch.randn(3, 2)),
        case("sequential", nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2), nn.Tanh()),
             torch.randn(3, 4)),
        case("flatten", nn.Flatten(), torch.randn(2, 3, 2)),
        case("dropout_eval", nn.Dropout(0.3), torch.randn(4), train=False),
    ]
    reprs = {
        "rms_norm": None,
        "mish_silu_hardswish": repr(nn.Sequential(nn.Mish(), nn.SiLU(), nn.Hardswish(), nn.ReLU6(), nn.Sigmoid())),
        "dropouts": repr(nn.Sequential(nn.Dropout(0.1), nn.Dropout2d(0.25, inplace=True))),
        "embedding_options": repr(nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0)),
        "unflatten": repr(nn.Unflatten(1, (2, 3))),
        "identity": repr(nn.Identity()),
        "module_list": repr(nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm([2, 3], eps=1e-6)])),
        "bn_momentum_none": repr(nn.BatchNorm1d(5, momentum=None, affine=False)),
    }
    del reprs["rms_norm"]  # RMSNorm arrived in PyTorch 2.4
    with open(os.path.join(HERE, "nn_layers.json"), "w") as f:
        json.dump({"cases": cases, "reprs": reprs}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
