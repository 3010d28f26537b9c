"""How every golden generator writes numbers and tensors into its JSON (read back by
tests/golden_support.h). Imported by the gen_*.py scripts next to it; needs torch and numpy.

The one encoding of a value of a tensor of dtype d:
  float64                    the Python float (json writes its repr, which round-trips)
  float32, float16, bfloat16 the shortest decimal whose double rounds to the same float32 (each
                             of these dtypes converts exactly to float32); checked, sign of zero
                             included, so the C++ side's double -> dtype gives the value back
  nan, +-inf                 the strings "nan", "inf", "-inf" (JSON has no such numbers)
  integers, bool             JSON ints and bools
A tensor is {"dtype", "shape", "data"}, dtype as PyTorch names it without "torch.", data
row-major.
"""
import json
import math

import numpy as np
import torch


def dtype_name(dtype):
    """torch.float32 -> "float32", as ember's dtype_name() spells it."""
    return str(dtype).replace("torch.", "")


def enc_float(v, dtype):
    """A floating value of a `dtype` tensor, as the encoding above says."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if dtype == torch.float64:
        return v
    x = float(repr(np.float32(v)))
    assert np.float32(x) == np.float32(v) and math.copysign(1, x) == math.copysign(1, v), v
    return x


def enc_value(v, dtype):
    """One value of a `dtype` tensor: floats as enc_float, bools as bools, integers as ints."""
    if dtype.is_floating_point:
        return enc_float(v, dtype)
    if dtype == torch.bool:
        return bool(v)
    return int(v)


def enc_scalar(s):
    """A Python scalar argument: ints, bools and finite floats as themselves (the kind stays
    visible in the JSON), non-finite floats as their strings."""
    if isinstance(s, float) and not math.isfinite(s):
        return enc_float(s, torch.float64)
    return s


def enc_values(t):
    """The values of tensor t, row-major, each as enc_value."""
    flat = t.detach().contiguous().reshape(-1)
    if t.dtype.is_floating_point:
        flat = flat.to(torch.float64)
    return [enc_value(v, t.dtype) for v in flat.tolist()]


def enc_tensor(t):
    """{"dtype", "shape", "data"} of tensor t."""
    return {"dtype": dtype_name(t.dtype), "shape": list(t.shape), "data": enc_values(t)}


def write_cases(path, cases, head="", separators=(",", ":")):
    """Writes {<head>"cases": [...]} with one case per line, so that a diff of two generations
    shows the cases that changed. `head` is the JSON of any members before "cases", each
    followed by ",\\n"."""
    lines = [json.dumps(c, separators=separators, allow_nan=False) for c in cases]
    with open(path, "w") as f:
        f.write("{" + head + '"cases": [\n' + ",\n".join(lines) + "\n]}\n")
