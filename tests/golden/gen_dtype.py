#!/usr/bin/python3
"""Writes PyTorch's reference data for ember's dtype tests (run with Debian's /usr/bin/python3,
which has PyTorch 1.13):

  half_bf16.txt  float32 -> float16/bfloat16 rounding and float16/bfloat16 -> float32 widening
  promotion.txt  torch.promote_types and torch.result_type over 1-D tensors, 0-d tensors, scalars

Both are line-based: '#' starts a comment, every other line is a tag and space-separated fields,
so C++ reads them with iostreams. All bit patterns are lowercase hex without '0x'.

half_bf16.txt lines:
  f2h <f32 bits> <float16 bits> <bfloat16 bits>   torch.tensor(x).to(float16 / bfloat16)
  h2f <float16 bits> <f32 bits>                   torch.tensor(h).to(float32)
  b2f <bfloat16 bits> <f32 bits>
  h2f_fnv1a64 <16 hex digits>                     checksum of the whole h2f table, see below
  b2f_fnv1a64 <16 hex digits>
The h2f/b2f tables have 65536 entries each, too many to list, so the file lists every entry whose
input is a NaN, Inf, zero or subnormal plus every 127th other one, and a checksum of the rest:
FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) over the 4 little-endian bytes of the
float32 result for every non-NaN input bit pattern 0x0000..0xffff in increasing order (NaN inputs
are skipped there because they are all listed).

All conversions are of 0-d tensors, which take c10's scalar conversion (c10::Half(float),
c10::BFloat16(float)), the one ember's Half/BFloat16 constructors mirror. PyTorch's own results
depend on the path for NaN: on CPU, float32 -> bfloat16 of a tensor with 1 or more dims takes
the vectorised kernel, which gives 0xffff for every NaN, while the 0-d path gives 0x7fc0. The
generator checks that the two paths agree on everything else and prints what differs.
"""
import os
import random
import struct

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
SCALARS = {"True": True, "2": 2, "2.5": 2.5}


def name(dtype):
    return str(dtype).replace("torch.", "")


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits_of(t, mask):
    # Reads raw bits through an integer view: float NaN payloads survive, Python floats would not.
    itype = torch.int16 if mask == 0xFFFF else torch.int32
    return [v & mask for v in t.view(itype).tolist()]


def to_16(values, dtype):
    """Each float32 bit pattern converted as a 0-d tensor, as a list of 16-bit patterns."""
    return [bits_of(torch.tensor(f32(v), dtype=torch.float32).to(dtype).reshape(1), 0xFFFF)[0]
            for v in values]


def widen_all(dtype):
    """All 65536 16-bit patterns of dtype widened to float32 as 0-d tensors, by pattern."""
    src = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)
    out = [bits_of(src[i].to(torch.float32).reshape(1), 0xFFFFFFFF)[0] for i in range(65536)]
    assert out == bits_of(src.to(torch.float32), 0xFFFFFFFF), "0-d and 1-D widening differ"
    return out[32768:] + out[:32768]  # arange starts at pattern 0x8000


def float_inputs(rng):
    xs = set()
    # Signed zeros, infinities, NaNs with assorted payloads (quiet and signalling), extremes.
    specials = [0x00000000, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF, 0x7FA00000,
                0x7F802000, 0x7FC00001, 0x7F80FFFF, 0x7FBFFFFF, 0x7FFF0000, 0x7F810000,
                0x7F7FFFFF, 0x00800000, 0x00000001, 0x007FFFFF, 0x00400000, 0x00000100]
    xs.update(specials)
    for v in [65504.0, 65519.99, 65520.0, 65536.0, 2.0**-14, 2.0**-24, 2.0**-25, 1.5 * 2.0**-24,
              2.5 * 2.0**-24, 2.0**-15, 1.0, 3.0e38, 1.0 / 3.0]:
        b = struct.unpack("<I", struct.pack("<f", v))[0]
        xs.update([b - 1, b, b + 1])
    # float16 rounding boundaries: for each binade (0 = subnormal) and some mantissas, the exact
    # midpoint to the next half and one float32 ulp either side. The last one of the top binade
    # is the 65504 -> Inf boundary.
    for e in range(31):
        for m in [0, 1, 2, 3, 0x1FF, 0x200, 0x3FE, 0x3FF] + rng.sample(range(1024), 4):
            lo = f32((e + 112) << 23 | m << 13) if e else m * 2.0**-24
            step = 2.0**-24 if e == 0 else 2.0 ** (e - 25)
            mid = struct.unpack("<I", struct.pack("<f", lo + step / 2))[0]
            xs.update([mid - 1, mid, mid + 1])
    # bfloat16 rounding boundaries: the dropped 16 bits are exactly 0x8000 (tie), +-1.
    for e in range(255):
        for m in [0, 1, 0x7F] + rng.sample(range(128), 1):
            mid = e << 23 | m << 16 | 0x8000
            xs.update([mid - 1, mid, mid + 1])
    # Random bit patterns over the whole float range, and dense in float16's range.
    xs.update(rng.getrandbits(32) & 0x7FFFFFFF for _ in range(2000))
    xs.update(rng.randrange(0x33000000, 0x47800000) for _ in range(1500))
    # Each magnitude with a random sign, so both signs occur everywhere.
    return sorted(x | (rng.getrandbits(1) << 31) for x in xs) + [0x80000000, 0xFF800000,
                                                                  0xFFC00000, 0xFF800001]


def fnv1a64(words):
    h = 0xCBF29CE484222325
    for w in words:
        for byte in struct.pack("<I", w):
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def write_half_bf16():
    rng = random.Random(1234)
    xs = float_inputs(rng)
    half, bf16 = to_16(xs, torch.float16), to_16(xs, torch.bfloat16)
    # Compare with the vectorised path (one 1-D tensor) and report differences.
    big = torch.tensor([f32(x) for x in xs], dtype=torch.float32)
    for dtype, scalar in [(torch.float16, half), (torch.bfloat16, bf16)]:
        vec = bits_of(big.to(dtype), 0xFFFF)
        diff = [(x, s, v) for x, s, v in zip(xs, scalar, vec) if s != v]
        nan_only = all((x & 0x7FFFFFFF) > 0x7F800000 for x, _, _ in diff)
        print(f"{name(dtype)}: {len(diff)} scalar/vector differences (NaN inputs only: {nan_only})",
              [f"{x:08x}->{s:04x}/{v:04x}" for x, s, v in diff[:3]])
    out = ["# Generated by gen_dtype.py with torch " + torch.__version__ + "; the format and the",
           "# checksum are described there."]
    out += [f"f2h {x:08x} {h:04x} {b:04x}" for x, h, b in zip(xs, half, bf16)]
    for tag, dtype, exp_mask in [("h2f", torch.float16, 0x7C00), ("b2f", torch.bfloat16, 0x7F80)]:
        table = widen_all(dtype)
        for i, r in enumerate(table):
            if (i & exp_mask) in (0, exp_mask) or i % 127 == 0:
                out.append(f"{tag} {i:04x} {r:08x}")
        is_nan = lambda i: (i & exp_mask) == exp_mask and (i & ~exp_mask & 0x7FFF) != 0
        out.append(f"{tag}_fnv1a64 {fnv1a64(r for i, r in enumerate(table) if not is_nan(i)):016x}")
    with open(os.path.join(HERE, "half_bf16.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


def make(kind, dtype_or_scalar):
    if kind == "s":
        return SCALARS[dtype_or_scalar]
    return torch.empty((2,) if kind == "t" else (), dtype=dtype_or_scalar)


def write_promotion():
    out = ["# Generated by gen_dtype.py with torch " + torch.__version__ + "; format:",
           "#   promote <a> <b> <torch.promote_types(a, b)>",
           "#   default <dtype>   (torch.set_default_dtype for the lines that follow)",
           "#   rt <kind a> <a> <kind b> <b> <torch.result_type(a, b)>",
           "# kind t: 1-D tensor of 2 elements, z: 0-d tensor, s: Python scalar (a literal).",
           "# Every rt result was also checked to be the dtype of a + b."]
    for a in DTYPES:
        for b in DTYPES:
            out.append(f"promote {name(a)} {name(b)} {name(torch.promote_types(a, b))}")
    operands = [(k, d) for k in "tz" for d in DTYPES] + [("s", s) for s in SCALARS]
    for default in [torch.float32, torch.float64]:
        torch.set_default_dtype(default)
        out.append(f"default {name(default)}")
        for ka, a in operands:
            for kb, b in operands:
                if ka == "s" and kb == "s":
                    continue  # torch.result_type needs a tensor
                x, y = make(ka, a), make(kb, b)
                r = torch.result_type(x, y)
                assert (x + y).dtype == r, (ka, a, kb, b)
                fa = a if ka == "s" else name(a)
                fb = b if kb == "s" else name(b)
                out.append(f"rt {ka} {fa} {kb} {fb} {name(r)}")
    torch.set_default_dtype(torch.float32)
    with open(os.path.join(HERE, "promotion.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    write_half_bf16()
    write_promotion()
