"""Writes tests/golden/random.txt: PyTorch 1.13's CPU random numbers for tests/core/random_test.cpp.

Run with the reference PyTorch: /usr/bin/python3 tests/golden/gen_random.py
One record per line:  <name> <dtype> <shape> <values...>
  shape: sizes joined by ',' ('-' for none); values: floats as hex bit patterns (float32 8 digits,
  float64 16, float16/bfloat16 4), integers and bools in decimal. A 'checksum' record holds one
  uint64 (see checksum()); a 'bytes' record holds one hex string.
Each record's name says how it was made; the C++ test repeats the same calls in the same order.
"""
import os

import numpy as np
import torch

assert torch.__version__.startswith("1.13"), torch.__version__

BITS = {torch.float32: np.uint32, torch.float64: np.uint64,
        torch.float16: np.uint16, torch.bfloat16: np.uint16}
NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
         torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32",
         torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}
lines = []


def bits(t):
    """Element bit patterns of a float tensor, row-major, as unsigned integers."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16).ravel()
    return t.numpy().view(BITS[t.dtype]).ravel()


def record(name, t):
    shape = ",".join(str(s) for s in t.shape) or "-"
    if t.dtype in BITS:
        width = 2 * t.element_size()
        values = [format(int(v), "0%dx" % width) for v in bits(t)]
    else:
        values = [str(int(v)) for v in t.reshape(-1).tolist()]
    lines.append(" ".join([name, NAMES[t.dtype], shape] + values))


def checksum(name, t):
    """sum_i (i + 1) * value_i mod 2^64 over bit patterns (floats) or values (integers)."""
    v = bits(t) if t.dtype in BITS else t.reshape(-1).numpy()
    v = v.astype(np.uint64)
    weights = np.arange(1, v.size + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        total = int(np.sum(v * weights, dtype=np.uint64))
    lines.append("%s checksum %s %d" % (name, ",".join(str(s) for s in t.shape), total))


def state_bytes(name, state):
    lines.append("%s bytes %d %s" % (name, state.numel(), bytes(state.numpy()).hex()))


def seeded(seed=0):
    torch.manual_seed(seed)


# ── uniform ──
seeded(); record("rand_3x4", torch.rand(3, 4))
seeded(); record("rand_20_f64", torch.rand(20, dtype=torch.float64))
seeded(); record("rand_20_f16", torch.rand(20, dtype=torch.float16))
seeded(); record("rand_20_bf16", torch.rand(20, dtype=torch.bfloat16))
seeded(); record("uniform_m1_1_20", torch.empty(20).uniform_(-1, 1))
# Odd bounds show that x * (to - from) + from is one fused multiply-add in the AVX2 kernels.
for dt, tag in [(torch.float32, "f32"), (torch.float64, "f64"),
                (torch.float16, "f16"), (torch.bfloat16, "bf16")]:
    seeded(); record("uniform_odd_64_" + tag, torch.empty(64, dtype=dt).uniform_(-0.0123, 0.0456))

# ── normal: scalar path (< 16 elements or non-contiguous) and the vectorised blocks of 16 ──
seeded(); record("randn_3x4", torch.randn(3, 4))
seeded(); record("randn_100", torch.randn(100))
seeded(); record("randn_17", torch.randn(17))
seeded(); record("randn_16", torch.randn(16))
seeded(); record("randn_15", torch.randn(15))
seeded(); record("randn_5x5_f64", torch.randn(5, 5, dtype=torch.float64))
seeded(); record("randn_7_f64", torch.randn(7, dtype=torch.float64))
seeded(); record("randn_40_f16", torch.randn(40, dtype=torch.float16))
seeded(); record("randn_40_bf16", torch.randn(40, dtype=torch.bfloat16))
seeded(); record("randn_5_f16", torch.randn(5, dtype=torch.float16))
seeded(); record("normal_2_3_10", torch.empty(10).normal_(2, 3))
seeded(); record("normal_2_3_10_f64", torch.empty(10, dtype=torch.float64).normal_(2, 3))
seeded(); record("normal_2_3_40", torch.empty(40).normal_(2, 3))
seeded(); record("normal_2_3_40_f64", torch.empty(40, dtype=torch.float64).normal_(2, 3))
seeded(); record("normal_2_3_40_f16", torch.empty(40, dtype=torch.float16).normal_(2, 3))
seeded(); record("normal_2_3_40_bf16", torch.empty(40, dtype=torch.bfloat16).normal_(2, 3))
# Non-contiguous tensors: filled in memory order, normal_ through the scalar path.
seeded(); x = torch.empty(4, 6).t(); x.normal_(); record("normal_transposed_6x4", x)
seeded(); y = torch.zeros(4, 6); y[:, ::2].uniform_(); record("uniform_strided_4x6", y)
seeded(); checksum("randn_1m", torch.randn(1 << 20))
seeded(); checksum("randn_100001_f64", torch.randn(100001, dtype=torch.float64))
seeded(); checksum("normal_m1_0p5_65537", torch.empty(65537).normal_(-1, 0.5))

# ── integers ──
seeded(); record("randint_0_10_3x4", torch.randint(0, 10, (3, 4)))
seeded(); record("randint_huge_6", torch.randint(-2**40, 2**40, (6,)))
seeded(); record("randint_2p32_4", torch.randint(0, 2**32, (4,)))
seeded(); record("randint_5_8_i32", torch.randint(5, (8,), dtype=torch.int32))
seeded(); record("randint_m100_100_8_i8", torch.randint(-100, 100, (8,), dtype=torch.int8))
seeded(); record("randint_0_1000_6_f32", torch.randint(0, 1000, (6,), dtype=torch.float32))
seeded(); record("randint_huge_4_f64", torch.randint(-2**40, 2**40, (4,), dtype=torch.float64))
seeded(); record("randint_0_2_8_bool", torch.randint(0, 2, (8,), dtype=torch.bool))
seeded(); record("randperm_10", torch.randperm(10))
seeded(); record("randperm_20_f32", torch.randperm(20, dtype=torch.float32))
seeded(); p = torch.randperm(100000); record("randperm_100000_head", p[:32]); checksum("randperm_100000", p)

# ── bernoulli ──
seeded(); record("bernoulli_0p3_20", torch.empty(20).bernoulli_(0.3))
seeded(); record("bernoulli_0p5_12_bool", torch.empty(12, dtype=torch.bool).bernoulli_(0.5))

# ── generators and streams ──
g = torch.Generator().manual_seed(42)
record("gen42_rand_5", torch.rand(5, generator=g))
record("gen42_randn_5", torch.randn(5, generator=g))
record("gen42_randn_20", torch.randn(20, generator=g))
record("default_gen_rand_3", torch.rand(3, generator=torch.Generator()))
seeded()
record("interleaved_rand_3", torch.rand(3))
record("interleaved_randn_3", torch.randn(3))  # leaves a cached normal
record("interleaved_rand_3b", torch.rand(3))
record("interleaved_randn_3b", torch.randn(3))  # starts with the cached one
record("interleaved_randint_4", torch.randint(0, 100, (4,)))

# ── get_state / set_state ──
seeded(); state_bytes("state_seed0", torch.get_rng_state())
seeded(); torch.rand(7); torch.randn(5)  # mid-block, with a cached double normal
state = torch.get_rng_state(); state_bytes("state_after_rand7_randn5", state)
record("after_state_randn_3", torch.randn(3))
record("after_state_rand_4", torch.rand(4))
seeded(1234); state_bytes("state_seed1234_drawn700", (torch.rand(700), torch.get_rng_state())[1])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random.txt")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("wrote %s (%d records, %d bytes)" % (out, len(lines), os.path.getsize(out)))
