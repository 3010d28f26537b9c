#!/usr/bin/python3
"""Checkpoints written by PyTorch 1.13 for tests/serialize/checkpoint_test.cpp.

    /usr/bin/python3 tests/golden/gen_checkpoints.py            # writes tests/golden/checkpoints/
    /usr/bin/python3 tests/golden/gen_checkpoints.py --mirror F # prints torch.load(F) as JSON

Each .pt file comes with its "mirror" in expected.json: the loaded tree as JSON (dict items in
order, tensors with dtype/shape/stride/offset/values), which the C++ test compares ember's
load() against. --mirror is how the test reads files that ember wrote with real PyTorch.
"""
import collections
import io
import json
import os
import pickle
import struct
import sys
import zipfile

import torch
import torch.nn as nn

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoints")


def mirror(o):
    if isinstance(o, torch.Tensor):
        vals = o.detach().flatten()
        vals = vals.to(torch.float64 if o.is_floating_point() else torch.int64).tolist()
        return {"type": "tensor", "dtype": str(o.dtype)[6:], "shape": list(o.shape),
                "stride": list(o.stride()), "offset": o.storage_offset(),
                "requires_grad": o.requires_grad, "values": vals,
                "storage": o.storage().data_ptr() if o.numel() else 0}
    if isinstance(o, bool):
        return {"type": "bool", "value": o}
    if isinstance(o, int):
        return {"type": "int", "value": o}
    if isinstance(o, float):
        return {"type": "double", "value": o}
    if isinstance(o, str):
        return {"type": "string", "value": o}
    if o is None:
        return {"type": "none"}
    if isinstance(o, (list, tuple)):  # torch.Size is a tuple
        return {"type": "list" if isinstance(o, list) else "tuple",
                "items": [mirror(x) for x in o]}
    if isinstance(o, dict):
        out = {"type": "dict", "ordered": isinstance(o, collections.OrderedDict),
               "items": [[mirror(k), mirror(v)] for k, v in o.items()]}
        if hasattr(o, "_metadata"):
            out["metadata"] = mirror(o._metadata)
        return out
    raise TypeError(type(o))


def load_mirror(path):
    """torch.load(weights_only=True); 1.13's restricted unpickler lacks BINFLOAT (floats), so
    files with Python floats fall back to weights_only=False there (reported in the output)."""
    try:
        return {"weights_only": True, "tree": mirror(torch.load(path, weights_only=True))}
    except (RuntimeError, pickle.UnpicklingError) as e:
        if "Unsupported operand 71" not in str(e):
            raise
        return {"weights_only": False, "tree": mirror(torch.load(path))}


class MyModel(nn.Module):  # the reference's MyModel, small
    def __init__(self, input_dim, hidden_dim, num_classes):
        super().__init__()
        self.linear1 = nn.Linear(input_dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, num_classes)
        self.register_buffer("step_count", torch.zeros(1))

    def forward(self, x):
        self.step_count += 1
        return self.linear2(torch.relu(self.linear1(x)))


class Evil:
    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg

    def __reduce__(self):
        return (self.fn, (self.arg,))


def raw_archive(path, pickled, records):
    """A zip laid out like torch.save's, with a hand-made data.pkl."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickled)
        for k, v in records.items():
            z.writestr("archive/data/" + k, v)
        z.writestr("archive/version", "3\n")


class StoragePickler(pickle.Pickler):
    """Pickles Ref(key, numel) as a storage persistent id, as torch.save does."""

    def persistent_id(self, obj):
        if isinstance(obj, tuple) and len(obj) == 3 and obj[0] == "REF":
            return ("storage", torch.FloatStorage, obj[1], "cpu", obj[2])
        return None


def rebuild_pickle(key, numel, offset, size, stride):
    class T:
        def __reduce__(self):
            return (torch._utils._rebuild_tensor_v2,
                    (("REF", key, numel), offset, size, stride, False, collections.OrderedDict()))
    buf = io.BytesIO()
    StoragePickler(buf, protocol=2).dump({"w": T()})
    return buf.getvalue()


ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
             torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
             torch.uint8: "U8", torch.bool: "BOOL"}


def write_safetensors(path, tensors, metadata):
    """The safetensors layout (huggingface/safetensors README), written by hand because the
    Python package is not in Debian: u64 header length, JSON header padded with spaces to a
    multiple of 8, then the tensors packed in order of descending itemsize, then name."""
    order = sorted(tensors, key=lambda k: (-tensors[k].element_size(), k))
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for k in order:
        b = tensors[k].contiguous().view(-1).view(torch.uint8).numpy().tobytes() \
            if tensors[k].numel() else b""
        header[k] = {"dtype": ST_DTYPES[tensors[k].dtype], "shape": list(tensors[k].shape),
                     "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    torch.manual_seed(0)
    os.makedirs(HERE, exist_ok=True)
    files = {}

    model = MyModel(4, 8, 3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x, y = torch.randn(5, 4), torch.tensor([0, 2, 1, 1, 0])
    for _ in range(3):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        sched.step()
    files["state_dict.pt"] = model.state_dict()
    files["adamw.pt"] = opt.state_dict()
    files["steplr.pt"] = sched.state_dict()
    files["checkpoint.pt"] = {
        "epoch": 5, "loss": 0.25, "config": "adamw lr=1e-2", "big": 1 << 40, "neg": -70000,
        "nested": [[1, 2.5, "x"], (True, None), []],
        "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
        "scheduler_state_dict": sched.state_dict(),
    }
    a = torch.arange(12, dtype=torch.float32)
    files["dtypes.pt"] = {
        "f16": (a / 4).to(torch.float16), "bf16": (a / 8).to(torch.bfloat16),
        "i8": (a - 6).to(torch.int8), "u8": (a * 20).to(torch.uint8),
        "b": a.remainder(3) == 0, "i64": a.to(torch.int64) * 3_000_000_000,
        "f64": a.to(torch.float64) / 3, "i16": (a - 6).to(torch.int16) * 1000,
        "i32": (a - 6).to(torch.int32) * 100000, "f32": a.reshape(3, 4) - 5.5,
    }
    base = torch.arange(12, dtype=torch.float32)
    files["views.pt"] = {
        "base": base, "tail": base[4:], "mat_t": base.view(3, 4).t(),
        "strided": base.view(3, 4)[:, ::2], "scalar": torch.tensor(3.5, dtype=torch.float64),
        "empty": torch.zeros(0, 3),
    }
    expected = {}
    for name, obj in files.items():
        path = os.path.join(HERE, name)
        torch.save(obj, path)
        expected[name] = load_mirror(path)

    st = {"weight": torch.randn(3, 4), "half": torch.randn(5).half(), "bf": torch.randn(2, 2).bfloat16(),
          "ids": torch.arange(6).reshape(2, 3), "mask": torch.tensor([True, False, True]),
          "bytes": torch.arange(7, dtype=torch.uint8), "scalar": torch.tensor(2.5, dtype=torch.float64),
          "empty": torch.zeros(0, 2)}
    write_safetensors(os.path.join(HERE, "tensors.safetensors"), st, {"format": "pt", "note": "hi"})
    expected["tensors.safetensors"] = {
        "weights_only": True,
        "tree": mirror(collections.OrderedDict((k, st[k]) for k in sorted(st)))}

    # Hostile and foreign files: each must be refused with a message.
    torch.save(Evil(os.system, "echo pwned"), os.path.join(HERE, "evil_os_system.pt"))
    torch.save(Evil(eval, "__import__('os').system('echo pwned')"),
               os.path.join(HERE, "evil_eval.pt"))
    raw_archive(os.path.join(HERE, "bad_storage_size.pt"),
                rebuild_pickle("0", 100, 0, (4,), (1,)), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    raw_archive(os.path.join(HERE, "out_of_bounds_view.pt"),
                rebuild_pickle("0", 4, 2, (2, 2), (2, 1)), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    torch.save({"w": torch.ones(2)}, os.path.join(HERE, "legacy.pt"),
               _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(nn.Linear(2, 2)), os.path.join(HERE, "torchscript.pt"))

    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"torch_version": torch.__version__, "files": expected}, f, indent=None)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--mirror":
        json.dump(load_mirror(sys.argv[2]), sys.stdout)
    else:
        main()
