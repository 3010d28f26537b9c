#!/usr/bin/python3
"""Writes tests/golden/activation_checkpoint.json: PyTorch 1.13's non-reentrant activation
checkpointing (torch.utils.checkpoint.checkpoint(..., use_reentrant=False)) of
fc2(dropout(relu(fc1(x)), p=0.5)) with the weights drawn here, in training mode after
torch.manual_seed(7): the loss sum(out^2) and the gradients of x and every parameter, with
preserve_rng_state True (the same mask again: equal to no checkpointing) and False (a new mask
in the recompute). Read by tests/utils/checkpoint_test.cpp. Run with /usr/bin/python3.
"""
import json
import os

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

from golden_json import enc_tensor, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


def run(net, x, mode):
    for p in net.parameters():
        p.grad = None
    x = x.clone().requires_grad_()
    torch.manual_seed(7)
    if mode == "plain":
        out = net(x)
    else:
        out = checkpoint(net, x, use_reentrant=False, preserve_rng_state=(mode == "preserve"))
    loss = out.pow(2).sum()
    loss.backward()
    grads = {"x": enc_tensor(x.grad)}
    for name, p in net.named_parameters():
        grads[name] = enc_tensor(p.grad)
    return {"name": mode, "loss": enc_tensor(loss.detach()), "grads": grads}


def main():
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(5, 8)
    state = {k: enc_tensor(v) for k, v in net.state_dict().items()}
    cases = [run(net, x, mode) for mode in ("plain", "preserve", "no_preserve")]
    head = '"state_dict": %s,\n"x": %s,\n' % (json.dumps(state), json.dumps(enc_tensor(x)))
    write_cases(os.path.join(HERE, "activation_checkpoint.json"), cases, head=head)


if __name__ == "__main__":
    main()
