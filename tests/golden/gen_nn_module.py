#!/usr/bin/python3
"""Writes tests/golden/nn_module.json: what PyTorch 1.13's nn.Module reports for the reference's
MyModel and a nested model with a tied weight (parameter/buffer/module names and shapes,
state_dict keys, repr, load_state_dict errors) and the default initialisation of Linear(4, 3)
after torch.manual_seed(0), read by tests/nn/module_test.cpp. Run with Debian's /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))


class MyModel(nn.Module):  # the reference's model
    def __init__(self, input_dim, hidden_dim, num_classes):
        super().__init__()
        self.linear1 = nn.Linear(input_dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, num_classes)
        self.register_buffer('step_count', torch.zeros(1))
        self.hidden_dim = hidden_dim

    def forward(self, x):
        self.step_count += 1
        return self.linear2(torch.relu(self.linear1(x)))


class Tied(nn.Module):  # a nested model whose head shares the encoder's first weight
    def __init__(self):
        super().__init__()
        self.encoder = MyModel(4, 4, 4)
        self.head = nn.Linear(4, 4, bias=False)
        self.head.weight = self.encoder.linear1.weight
        self.register_buffer('scratch', torch.zeros(2), persistent=False)
        self.register_buffer('scale', torch.ones(3))


def describe(model):
    return {
        "named_parameters": [[n, list(p.shape), p.requires_grad] for n, p in model.named_parameters()],
        "named_buffers": [[n, list(b.shape)] for n, b in model.named_buffers()],
        "named_modules": [[n, type(m).__name__] for n, m in model.named_modules()],
        "named_children": [n for n, _ in model.named_children()],
        "state_dict": [[k, list(v.shape)] for k, v in model.state_dict().items()],
        "repr": repr(model),
    }


def load_error(model, sd, strict):
    try:
        keys = model.load_state_dict(sd, strict=strict)
        return {"missing": keys.missing_keys, "unexpected": keys.unexpected_keys}
    except RuntimeError as e:
        return {"error": str(e)}


def main():
    out = {}
    out["mymodel"] = describe(MyModel(64, 128, 10))
    out["tied"] = describe(Tied())

    # Loading: each case lists the keys to drop, the keys to add (with shapes) and resized keys.
    loads = []
    for name, drop, add, resize, strict in [
        ("missing_and_unexpected_strict", ["linear2.bias"], {"linear3.weight": [2], "extra": [1]}, {}, True),
        ("missing_and_unexpected_loose", ["linear2.bias", "step_count"], {"linear1.extra": [2]}, {}, False),
        ("size_mismatch_loose", [], {}, {"linear1.weight": [3, 4], "linear2.bias": [7]}, False),
        ("size_mismatch_strict", ["linear1.bias"], {"oops": [1]}, {"linear2.weight": [10, 3]}, True),
        ("exact", [], {}, {}, True),
    ]:
        model = MyModel(8, 6, 4)
        sd = model.state_dict()
        for k in drop:
            del sd[k]
        for k, shape in add.items():
            sd[k] = torch.zeros(shape)
        for k, shape in resize.items():
            sd[k] = torch.zeros(shape)
        entry = {"name": name, "drop": drop, "add": add, "resize": resize, "strict": strict}
        entry.update(load_error(model, sd, strict))
        loads.append(entry)
    out["loads"] = loads

    torch.manual_seed(0)
    lin = nn.Linear(4, 3)
    out["linear_init_seed0"] = {"weight": lin.weight.detach().flatten().tolist(),
                                "bias": lin.bias.detach().flatten().tolist()}
    with open(os.path.join(HERE, "nn_module.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
