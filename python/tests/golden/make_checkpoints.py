"""Writes the checkpoint files test_serialize.py loads, with real PyTorch 1.13 (/usr/bin/python3):
    /usr/bin/python3 python/tests/golden/make_checkpoints.py
Their contents are made from arange, so the test rebuilds the expected values itself."""
import argparse
import collections
import pathlib

import torch

out = pathlib.Path(__file__).resolve().parent / "files"
out.mkdir(exist_ok=True)


def state_dict():
    w = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    sd = collections.OrderedDict()
    sd["w"] = w
    sd["w_t"] = w.t()                       # a view: shares w's storage in the file
    sd["b"] = torch.arange(3, dtype=torch.float64) / 4
    sd["h"] = torch.arange(4, dtype=torch.float16)
    sd["bf"] = torch.arange(4, dtype=torch.bfloat16)
    sd["steps"] = torch.tensor(7)
    sd["mask"] = torch.tensor([True, False, True])
    sd._metadata = collections.OrderedDict([("", {"version": 1}), ("layer", {"version": 2})])
    return sd


torch.save(state_dict(), out / "state_dict.pt")
torch.save({"epoch": 3, "loss": 0.25, "name": "run", "shape": (2, 3), "none": None,
            "list": [1, 2.5, "x", True], "model": state_dict()}, out / "checkpoint.pt")
torch.save({"args": argparse.Namespace(lr=0.1, epochs=3), "w": torch.arange(3.0),
            "device": torch.device("cpu"), "size": torch.Size([2, 3])}, out / "namespace.pt")
for f in sorted(out.glob("*.pt")):
    print(f.name, f.stat().st_size, "bytes")
