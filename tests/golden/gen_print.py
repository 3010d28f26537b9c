#!/usr/bin/python3
"""Writes tests/golden/print.txt: PyTorch 1.13's repr() for tensors of every dtype and shape.

Each record is read by tests/core/print_test.cpp:
    case <name> <dtype> <shape> <op> <flags>
    <flat row-major values: hex bit patterns for floating dtypes, decimal for integers and bool>
    <the repr, one or more lines>
    =====
shape is "(2,3)", "(5,)" or "()". op is applied to the built tensor before printing: "none", "T"
(all dims reversed) or "step" (every other element of the last dim). flags is "-" or a comma list
of "rg" (requires_grad) and "f64" (torch.set_default_dtype(torch.float64) while printing).
Run with Debian's /usr/bin/python3, which has torch.
"""
import math
import os

import torch

BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
        torch.float64: torch.int64}
HEX_DIGITS = {torch.int16: 4, torch.int32: 8, torch.int64: 16}


def encode(t):
    """Flat values of a contiguous tensor in a form C++ rebuilds bit for bit."""
    flat = t.contiguous().reshape(-1)
    if t.dtype in BITS:
        ints = flat.view(BITS[t.dtype]).tolist()
        n = HEX_DIGITS[BITS[t.dtype]]
        return " ".join(format(v & ((1 << (4 * n)) - 1), "0%dx" % n) for v in ints)
    return " ".join(str(int(v)) for v in flat.tolist())


def record(name, t, op="none", flags=()):
    shown = {"none": lambda x: x, "T": lambda x: x.permute(*reversed(range(x.dim()))),
             "step": lambda x: x[..., ::2]}[op](t)
    if "rg" in flags:
        shown.requires_grad_(True)
    old = torch.get_default_dtype()
    if "f64" in flags:
        torch.set_default_dtype(torch.float64)
    text = repr(shown)
    torch.set_default_dtype(old)
    assert "=====" not in text
    shape = "(" + ",".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"
    dtype = str(t.dtype).replace("torch.", "")
    header = "case %s %s %s %s %s" % (name, dtype, shape, op, ",".join(flags) or "-")
    return "%s\n%s\n%s\n=====\n" % (header, encode(t), text)


def cases():
    g = torch.Generator().manual_seed(0)

    def randn(*shape, dtype=torch.float32):
        return torch.randn(*shape, generator=g).to(dtype)

    nan, inf = math.nan, math.inf
    f = lambda values, dtype=torch.float32: torch.tensor(values, dtype=dtype)  # noqa: E731

    # Every dtype, 1-D and 2-D.
    yield "bool_1d", torch.tensor([True, False, True])
    yield "bool_2d", torch.tensor([[True, True], [False, True]])
    yield "uint8", torch.tensor([0, 7, 255], dtype=torch.uint8)
    yield "int8", torch.tensor([[-128, 5], [127, 0]], dtype=torch.int8)
    yield "int16", torch.tensor([-32768, 32767, 12], dtype=torch.int16)
    yield "int32", torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4)
    yield "int64_2d", torch.tensor([[1, 2, 3], [4, 5, 6]])
    yield "int64_extremes", torch.tensor([-2**63, 2**63 - 1, 0])
    yield "float32_2d", randn(2, 3)
    yield "float64_2d", randn(3, 2, dtype=torch.float64)
    yield "float16_1d", randn(5, dtype=torch.float16)
    yield "bfloat16_1d", randn(5, dtype=torch.bfloat16)
    yield "float16_extremes", f([65504.0, 6e-8, -1e-5, 1.0], torch.float16)
    yield "bfloat16_extremes", f([1e30, 3.14, -2.5e-20], torch.bfloat16)
    yield "float16_int_mode", f([1.0, -2.0, 2048.0], torch.float16)
    # 0-d.
    yield "scalar_int", torch.tensor(42)
    yield "scalar_float", torch.tensor(3.14)
    yield "scalar_neg_zero", torch.tensor(-0.0)
    yield "scalar_zero", torch.tensor(0.0)
    yield "scalar_nan", torch.tensor(nan)
    yield "scalar_neg_inf", torch.tensor(-inf)
    yield "scalar_small", torch.tensor(1e-5)
    yield "scalar_big_int", torch.tensor(1e10)
    yield "scalar_bool", torch.tensor(False)
    yield "scalar_uint8", torch.tensor(200, dtype=torch.uint8)
    yield "scalar_half", torch.tensor(3.14, dtype=torch.float16)
    yield "scalar_double", torch.tensor(-2.5, dtype=torch.float64)
    # int_mode floats.
    yield "int_mode", f([1.0, 2.0])
    yield "int_mode_neg", f([[-1.0, 0.0], [100.0, 7.0]])
    yield "int_mode_ratio_1000", f([1.0, 1000.0])
    yield "int_mode_ratio_sci", f([1.0, 1001.0])
    yield "int_mode_1e8", f([1e8, 3.0], torch.float64)
    yield "int_mode_big_sci", f([2e8, 3e8], torch.float64)
    yield "int_mode_nonfinite", f([1.0, nan, inf, -inf, -0.0])
    # Scientific notation and its thresholds.
    yield "sci_large", f([1e8 + 0.5, 1.0], torch.float64)
    yield "sci_small", f([1e-5, 1.0])
    yield "sci_mixed", f([1e-3, 2.5, 1e3])
    yield "sci_tiny_double", f([5e-324, 1e-300, 1e300], torch.float64)
    yield "sci_float32_max", f([3.4e38, -1.5])
    yield "min_1e-4_float32", f([1e-4, 0.5])
    yield "min_1e-4_float64", f([1e-4, 0.5], torch.float64)
    yield "sci_with_nan", f([1e-5, nan, -inf, 0.0])
    yield "fixed_with_nan", f([1.5, nan, -inf, -0.0])
    yield "rounding", f([0.12345, 0.5, 1.99995, 9.99995, 2.00005], torch.float64)
    yield "all_nonfinite", f([nan, inf, -inf])
    yield "zeros_signed", f([0.0, -0.0])
    yield "neg_nan", -f([nan, 1.25])
    # Summarised (> 1000 elements).
    yield "arange_2000", torch.arange(2000)
    yield "float_2000", randn(2000)
    yield "float_40x40", randn(40, 40)
    yield "float_10x10x20", randn(10, 10, 20)
    yield "int_3x400", torch.arange(1200, dtype=torch.int32).reshape(3, 400)
    yield "uint8_1x1001", (torch.arange(1001) % 256).to(torch.uint8).reshape(1, 1001)
    yield "bool_summarised", torch.arange(1500).reshape(30, 50) % 3 == 0
    yield "half_summarised", randn(50, 30, dtype=torch.float16)
    yield "int_mode_summarised", torch.arange(2000, dtype=torch.float32) * 3
    yield "no_dim_above_6", torch.arange(1296, dtype=torch.int16).reshape(6, 6, 6, 6)
    # Rows that wrap at linewidth 80.
    yield "wrap_30_floats", randn(30)
    yield "wrap_100_ints", torch.arange(100) * 1000
    yield "wrap_rows", randn(3, 25, dtype=torch.float64)
    yield "wrap_deep", randn(1, 1, 1, 1, 1, 1, 1, 1, 1, 30)
    yield "wrap_sci", randn(20) * 1e10
    # Higher ranks.
    yield "3d", torch.arange(24).reshape(2, 3, 4)
    yield "4d", randn(2, 2, 2, 2)
    # Empty tensors.
    yield "empty_1d", torch.empty(0)
    yield "empty_0x3", torch.empty(0, 3)
    yield "empty_2x0x4", torch.empty(2, 0, 4)
    yield "empty_int64", torch.empty(0, dtype=torch.int64)
    yield "empty_bool_0x3", torch.empty(0, 3, dtype=torch.bool)
    yield "empty_float64", torch.empty(2, 0, dtype=torch.float64)
    yield "empty_half", torch.empty(0, dtype=torch.float16)


def special():
    g = torch.Generator().manual_seed(1)
    yield "transposed", torch.randn(3, 4, generator=g), "T", ()
    yield "transposed_3d", torch.arange(24).reshape(2, 3, 4), "T", ()
    yield "sliced_step", torch.randn(4, 6, generator=g), "step", ()
    yield "requires_grad", torch.tensor([1.0, 2.0]), "none", ("rg",)
    yield "requires_grad_scalar", torch.tensor(0.5), "none", ("rg",)
    yield "requires_grad_empty", torch.empty(0, 3), "none", ("rg",)
    yield "requires_grad_double", torch.tensor([1.5, -2.25], dtype=torch.float64), "none", ("rg",)
    yield "requires_grad_wrap", torch.randn(8, generator=g) * 1e5, "none", ("rg",)
    yield "suffix_wrap_dtype", torch.randn(2, 8, generator=g, dtype=torch.float64), "none", ()
    yield "suffix_wrap_both", torch.randn(12, generator=g, dtype=torch.float64), "none", ("rg",)
    yield "suffix_1d_dtype", torch.randn(11, generator=g, dtype=torch.float64), "none", ()
    yield "default_f64_float32", torch.tensor([1.5, 2.0]), "none", ("f64",)
    yield "default_f64_float64", torch.tensor([1.5, 2.0], dtype=torch.float64), "none", ("f64",)
    yield "default_f64_empty32", torch.empty(0), "none", ("f64",)
    yield "default_f64_empty64", torch.empty(0, dtype=torch.float64), "none", ("f64",)


def main():
    out = [record(name, t) for name, t in cases()]
    out += [record(name, t, op, flags) for name, t, op, flags in special()]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "print.txt")
    with open(path, "w") as fh:
        fh.write("".join(out))
    print("wrote %d records, %d bytes to %s" % (len(out), os.path.getsize(path), path))


if __name__ == "__main__":
    main()
