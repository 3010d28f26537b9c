#!/usr/bin/python3
"""Writes tests/golden/conv.json: PyTorch 1.13's results for the ops in
include/ember/nn/functional/conv.h (convolutions, pooling, interpolate, pad) and their gradients,
read by tests/ops/conv_test.cpp and tests/ops/pool_test.cpp. Run with Debian's /usr/bin/python3.

The file is {"cases": [case, ...]}, one case per line. A case:
  op      the ember function ("conv2d", "max_pool2d_with_indices", "interpolate", "pad", ...)
  name    what the case covers
  inputs  tensor specs, positional (input, weight, bias)
  args    the keyword options, named as ember's option fields (JSON ints, floats, strings, lists)
  out     the result {"dtype", "shape", "data"} (row-major); "indices" too for *_with_indices
  grad    optional: {"grad_output": spec, "input": result, "weight": ..., "bias": ...}, the
          gradients PyTorch's autograd gives for that grad_output
  ref     "upcast" when the reference is the op on float32 copies rounded to the dtype
          (PyTorch 1.13 has no CPU float16 convolution/pooling kernel)
A tensor spec is {"dtype", "base", "data", "view"}: a contiguous tensor of shape base holding
data, then view ops applied in order: ["transpose", d0, d1], ["permute", dims],
["slice", dim, start, stop, step]. Inputs are multiples of 1/16 (exact in every dtype); outputs
are the shortest strings that round-trip the float32 (or float64) value; "nan"/"inf"/"-inf"
stand for non-finite values.
"""
import json
import math
import os
import random

import numpy as np
import torch
import torch.nn.functional as F

from golden_json import dtype_name, enc_tensor, enc_value, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
f16, bf16, f32, f64, i64 = torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int64
rng = random.Random(20240613)
CASES = []


def result(t):
    return enc_tensor(t.detach())


class T:
    """A tensor spec: base shape, dtype, view ops; values k/16 in [-3, 3] unless given."""

    def __init__(self, base, dtype=f32, view=(), data=None):
        self.base, self.dtype, self.view = list(base), dtype, list(view)
        n = int(np.prod(base)) if base else 1
        self.data = data if data is not None else [rng.randint(-48, 48) / 16 for _ in range(n)]

    def make(self):
        t = torch.tensor(self.data, dtype=f64).reshape(self.base).to(self.dtype)
        for op in self.view:
            if op[0] == "transpose":
                t = t.transpose(op[1], op[2])
            elif op[0] == "permute":
                t = t.permute(*op[1])
            elif op[0] == "slice":
                t = t[(slice(None),) * op[1] + (slice(op[2], op[3], op[4]),)]
        return t

    def spec(self):
        return {"dtype": dtype_name(self.dtype), "base": self.base,
                "data": [enc_value(v, self.dtype) for v in self.data], "view": self.view}


def HW(shape, dtype=f32):
    """(..., H, W) as the transpose of a contiguous (..., W, H): non-contiguous."""
    base = list(shape[:-2]) + [shape[-1], shape[-2]]
    return T(base, dtype, view=[["transpose", len(shape) - 2, len(shape) - 1]])


def NC(shape, dtype=f32):
    """(N, C, ...) as the transpose of a contiguous (C, N, ...)."""
    base = [shape[1], shape[0]] + list(shape[2:])
    return T(base, dtype, view=[["transpose", 0, 1]])


def SL(shape, dtype=f32):
    """(..., W) as every other element of a contiguous (..., 2W)."""
    base = list(shape[:-1]) + [2 * shape[-1]]
    return T(base, dtype, view=[["slice", len(shape) - 1, 0, None, 2]])


# ── how each op is called in PyTorch (args use ember's names) ──────────────
def call(op, xs, a):
    if op in ("conv1d", "conv2d"):
        pad = a.get("padding", 0)
        return getattr(F, op)(xs[0], xs[1], xs[2] if len(xs) > 2 else None, a.get("stride", 1),
                              pad, a.get("dilation", 1), a.get("groups", 1))
    if op in ("conv_transpose1d", "conv_transpose2d"):
        return getattr(F, op)(xs[0], xs[1], xs[2] if len(xs) > 2 else None, a.get("stride", 1),
                              a.get("padding", 0), a.get("output_padding", 0), a.get("groups", 1),
                              a.get("dilation", 1))
    if op.startswith("max_pool"):
        fn = getattr(F, op.replace("_with_indices", ""))
        return fn(xs[0], a["kernel_size"], a.get("stride"), a.get("padding", 0),
                  a.get("dilation", 1), ceil_mode=a.get("ceil_mode", False),
                  return_indices=op.endswith("_with_indices"))
    if op.startswith("avg_pool"):
        kw = {}
        if op == "avg_pool2d":
            kw["divisor_override"] = a.get("divisor_override")
        return getattr(F, op)(xs[0], a["kernel_size"], a.get("stride"), a.get("padding", 0),
                              a.get("ceil_mode", False), a.get("count_include_pad", True), **kw)
    if op.startswith("adaptive_max_pool"):
        fn = getattr(F, op.replace("_with_indices", ""))
        return fn(xs[0], a["output_size"], return_indices=op.endswith("_with_indices"))
    if op.startswith("adaptive_avg_pool"):
        return getattr(F, op)(xs[0], a["output_size"])
    if op == "interpolate":
        return F.interpolate(xs[0], size=a.get("size"), scale_factor=a.get("scale_factor"),
                             mode=a.get("mode", "nearest"), align_corners=a.get("align_corners"),
                             recompute_scale_factor=a.get("recompute_scale_factor"))
    if op == "pad":
        return F.pad(xs[0], a["pad"], mode=a.get("mode", "constant"), value=a.get("value"))
    raise ValueError(op)


def case(op, name, inputs, grad=False, upcast=False, **args):
    xs = [t.make() for t in inputs]
    c = {"op": op, "name": name, "inputs": [t.spec() for t in inputs], "args": args}
    if upcast:  # the op on float32 copies, rounded back
        dtype = xs[0].dtype
        res = call(op, [x.float() for x in xs], args)
        res = tuple(r.to(dtype) if r.is_floating_point() else r for r in res) \
            if isinstance(res, tuple) else res.to(dtype)
        c["ref"] = "upcast"
    else:
        if grad:
            xs = [x.detach().requires_grad_(x.is_floating_point()) for x in xs]
        res = call(op, xs, args)
    out = res[0] if isinstance(res, tuple) else res
    c["out"] = result(out)
    if isinstance(res, tuple):
        c["indices"] = result(res[1])
    if grad:
        go = T(list(out.shape), out.dtype)
        g = torch.autograd.grad(out, [x for x in xs if x.requires_grad], go.make())
        names = ["input", "weight", "bias"]
        c["grad"] = {"grad_output": go.spec()}
        for n, gv in zip(names, g):
            c["grad"][n] = result(gv)
    CASES.append(c)


# ── convolution ────────────────────────────────────────────────────────────
case("conv2d", "basic", [T([2, 3, 7, 6]), T([4, 3, 3, 3]), T([4])], grad=True, padding=1)
case("conv2d", "stride_pad_dilation", [T([2, 3, 9, 8]), T([4, 3, 3, 2])], grad=True,
     stride=[2, 1], padding=[1, 2], dilation=[2, 1])
case("conv2d", "stride3_kernel2", [T([1, 2, 8, 9]), T([3, 2, 2, 2]), T([3])], grad=True,
     stride=3)
case("conv2d", "groups2", [T([2, 4, 6, 6]), T([6, 2, 3, 3]), T([6])], grad=True, groups=2,
     padding=1)
case("conv2d", "depthwise_stride2", [T([1, 4, 7, 6]), T([4, 1, 3, 3]), T([4])], grad=True,
     groups=4, stride=2, padding=1)
case("conv2d", "depthwise_multiplier", [T([2, 3, 5, 5]), T([6, 1, 3, 3])], grad=True, groups=3)
case("conv2d", "depthwise_dilated_stride3", [T([1, 2, 11, 10]), T([2, 1, 3, 3])], groups=2,
     stride=3, padding=2, dilation=2)
case("conv2d", "same_even_kernel", [T([1, 3, 6, 7]), T([2, 3, 4, 4]), T([2])], grad=True,
     padding="same")
case("conv2d", "same_dilated", [T([2, 2, 5, 6]), T([3, 2, 2, 3])], grad=True, padding="same",
     dilation=[1, 2])
case("conv2d", "same_big_cin", [T([1, 8, 5, 5]), T([4, 8, 2, 2])], padding="same")
case("conv2d", "valid", [T([1, 3, 5, 6]), T([2, 3, 3, 3])], padding="valid")
case("conv2d", "unbatched", [T([3, 6, 6]), T([4, 3, 3, 3]), T([4])], grad=True, padding=1)
case("conv2d", "noncontig_input", [HW([2, 3, 6, 5]), T([4, 3, 3, 3])], grad=True, padding=1)
case("conv2d", "noncontig_weight", [NC([2, 3, 5, 5]), T([3, 4, 3, 3], view=[["transpose", 0, 1]])],
     stride=2)
case("conv2d", "pointwise", [T([2, 5, 4, 4]), T([3, 5, 1, 1]), T([3])], grad=True)
case("conv2d", "pointwise_stride2", [T([2, 5, 5, 4]), T([3, 5, 1, 1])], grad=True, stride=2)
case("conv2d", "pointwise_padded", [T([1, 4, 3, 3]), T([2, 4, 1, 1])], padding=1)
case("conv2d", "cin1_direct", [T([3, 1, 9, 20]), T([8, 1, 3, 3]), T([8])], grad=True, padding=1)
case("conv2d", "cin1_5x5_stride2", [T([2, 1, 12, 19]), T([5, 1, 5, 5])], stride=2, padding=2)
case("conv2d", "cin2_wide", [T([1, 2, 4, 37]), T([6, 2, 3, 3]), T([6])], padding=[0, 1])
case("conv2d", "cin16_gemm", [T([2, 16, 6, 6]), T([8, 16, 3, 3]), T([8])], grad=True, padding=1)
case("conv2d", "float64", [T([2, 3, 6, 5], f64), T([4, 3, 3, 3], f64), T([4], f64)], grad=True,
     padding=1, stride=[1, 2])
case("conv2d", "float64_direct", [T([2, 1, 6, 11], f64), T([3, 1, 3, 3], f64)], padding=1)
case("conv2d", "bfloat16", [T([1, 3, 5, 5], bf16), T([2, 3, 3, 3], bf16), T([2], bf16)],
     upcast=True, padding=1)
case("conv2d", "float16", [T([1, 3, 5, 5], f16), T([2, 3, 3, 3], f16)], upcast=True, padding=1)
case("conv2d", "empty_batch", [T([0, 3, 5, 5]), T([2, 3, 3, 3])], padding=1)
case("conv1d", "basic", [T([2, 3, 10]), T([4, 3, 3]), T([4])], grad=True, stride=2, padding=1,
     dilation=2)
case("conv1d", "groups_same_even", [T([2, 4, 9]), T([4, 2, 4])], grad=True, groups=2,
     padding="same")
case("conv1d", "unbatched_cin1", [T([1, 25]), T([3, 1, 5]), T([3])], padding=2)
case("conv1d", "noncontig", [SL([2, 3, 8]), T([2, 3, 3])], padding=1)
case("conv_transpose2d", "stride2_outpad", [T([2, 4, 4, 5]), T([4, 3, 3, 3]), T([3])], grad=True,
     stride=2, padding=1, output_padding=1)
case("conv_transpose2d", "groups_dilation", [T([1, 4, 5, 4]), T([4, 1, 3, 2])], grad=True,
     groups=2, dilation=[2, 1], padding=[1, 0])
case("conv_transpose2d", "stride3_kernel2", [T([1, 2, 3, 4]), T([2, 3, 2, 2]), T([3])], grad=True,
     stride=3, output_padding=[1, 2])
case("conv_transpose2d", "pointwise", [T([2, 3, 4, 4]), T([3, 2, 1, 1])], grad=True)
case("conv_transpose2d", "unbatched", [T([2, 4, 3]), T([2, 3, 3, 3]), T([3])], grad=True,
     stride=[1, 2], padding=1)
case("conv_transpose2d", "noncontig", [HW([1, 2, 4, 3]), T([2, 2, 3, 3])], stride=2)
case("conv_transpose1d", "basic", [T([2, 3, 6]), T([3, 2, 4]), T([2])], grad=True, stride=2,
     padding=1, output_padding=1)

# ── pooling ────────────────────────────────────────────────────────────────
case("max_pool2d", "k2", [T([2, 3, 8, 6])], grad=True, kernel_size=2)
case("max_pool2d", "k2_odd_sizes", [T([1, 2, 7, 9])], kernel_size=2)
case("max_pool2d_with_indices", "k3_s2_p1", [T([2, 3, 7, 8])], grad=True, kernel_size=3,
     stride=2, padding=1)
case("max_pool2d_with_indices", "overlap_s1", [T([1, 2, 5, 6])], grad=True, kernel_size=3,
     stride=1)
case("max_pool2d_with_indices", "rect_dilation", [T([1, 2, 9, 7])], grad=True,
     kernel_size=[3, 2], stride=[2, 1], padding=[1, 0], dilation=[2, 1])
case("max_pool2d_with_indices", "ceil_mode", [T([1, 2, 5, 7])], grad=True, kernel_size=2,
     stride=2, ceil_mode=True)
case("max_pool2d_with_indices", "ceil_mode_padding", [T([1, 1, 6, 6])], kernel_size=3, stride=2,
     padding=1, ceil_mode=True)
case("max_pool2d_with_indices", "ceil_mode_drop_last", [T([1, 1, 5, 5])], kernel_size=2,
     stride=3, padding=1, ceil_mode=True)
case("max_pool2d", "ceil_mode_k2", [T([1, 2, 5, 7])], kernel_size=2, ceil_mode=True)
nan, inf = math.nan, math.inf
special = [rng.randint(-48, 48) / 16 for _ in range(2 * 6 * 6)]
special[0], special[7], special[14] = nan, inf, -inf
special[20:24] = [-inf] * 4
special[40], special[41] = nan, nan
special[36 + 1] = -inf
case("max_pool2d_with_indices", "nan_inf", [T([2, 1, 6, 6], data=special)], kernel_size=2)
case("max_pool2d", "nan_inf_fast", [T([2, 1, 6, 6], data=special)], kernel_size=2)
case("max_pool2d_with_indices", "unbatched", [T([3, 5, 5])], kernel_size=2, stride=1)
case("max_pool2d_with_indices", "noncontig", [HW([2, 2, 6, 5])], grad=True, kernel_size=2,
     stride=[2, 1], padding=1)
case("max_pool2d", "bfloat16", [T([1, 2, 6, 6], bf16)], kernel_size=3, stride=2)
case("max_pool2d", "float16", [T([1, 2, 6, 6], f16)], upcast=True, kernel_size=3, stride=2)
case("max_pool2d", "float64", [T([1, 2, 6, 6], f64)], kernel_size=3, stride=2, padding=1)
case("max_pool1d_with_indices", "k3_s2_p1", [T([2, 3, 9])], grad=True, kernel_size=3, stride=2,
     padding=1)
case("max_pool1d_with_indices", "ceil_dilation", [T([1, 2, 10])], kernel_size=2, stride=2,
     dilation=2, ceil_mode=True)
case("max_pool1d", "unbatched", [T([3, 8])], kernel_size=2)
case("avg_pool2d", "k2", [T([2, 3, 6, 8])], grad=True, kernel_size=2)
case("avg_pool2d", "k3_s2_p1", [T([2, 2, 7, 8])], grad=True, kernel_size=3, stride=2, padding=1)
case("avg_pool2d", "no_count_pad", [T([1, 2, 7, 8])], grad=True, kernel_size=3, stride=2,
     padding=1, count_include_pad=False)
case("avg_pool2d", "ceil_mode", [T([1, 2, 7, 5])], grad=True, kernel_size=[3, 2], stride=2,
     padding=1, ceil_mode=True)
case("avg_pool2d", "ceil_mode_no_count_pad", [T([1, 2, 7, 5])], grad=True, kernel_size=3,
     stride=2, padding=1, ceil_mode=True, count_include_pad=False)
case("avg_pool2d", "divisor_override", [T([1, 2, 6, 6])], grad=True, kernel_size=3, stride=2,
     padding=1, divisor_override=5)
case("avg_pool2d", "unbatched_noncontig", [HW([3, 6, 5])], kernel_size=2, stride=1)
case("avg_pool2d", "float64", [T([1, 2, 5, 5], f64)], kernel_size=2, ceil_mode=True)
case("avg_pool2d", "bfloat16", [T([1, 2, 6, 6], bf16)], kernel_size=2)
case("avg_pool1d", "k3_s2_p1", [T([2, 3, 9])], kernel_size=3, stride=2, padding=1,
     count_include_pad=False)
case("adaptive_avg_pool2d", "down", [T([2, 3, 7, 9])], grad=True, output_size=[3, 4])
case("adaptive_avg_pool2d", "global", [T([2, 3, 5, 6])], grad=True, output_size=1)
case("adaptive_avg_pool2d", "identity", [T([1, 2, 4, 5])], output_size=[4, 5])
case("adaptive_avg_pool2d", "up", [T([1, 2, 3, 4])], grad=True, output_size=[5, 7])
case("adaptive_avg_pool2d", "unbatched_noncontig", [HW([3, 10, 7])], output_size=[3, 2])
case("adaptive_avg_pool2d", "float64", [T([1, 2, 7, 7], f64)], output_size=3)
case("adaptive_avg_pool1d", "basic", [T([2, 3, 11])], output_size=4)
case("adaptive_max_pool2d_with_indices", "down", [T([2, 3, 7, 9])], grad=True, output_size=[3, 4])
case("adaptive_max_pool2d_with_indices", "up", [T([1, 2, 3, 4])], grad=True, output_size=[5, 6])
case("adaptive_max_pool2d_with_indices", "nan_inf", [T([2, 1, 6, 6], data=special)],
     output_size=[4, 3])
case("adaptive_max_pool2d", "unbatched", [T([3, 6, 5])], output_size=2)
case("adaptive_max_pool1d_with_indices", "basic", [T([2, 3, 10])], output_size=4)

# ── interpolate ────────────────────────────────────────────────────────────
case("interpolate", "nearest_size", [T([2, 2, 4, 6])], grad=True, size=[5, 7])
case("interpolate", "nearest_scale2", [T([1, 2, 3, 4])], grad=True, scale_factor=2.0)
case("interpolate", "nearest_scale1.5", [T([1, 2, 5, 7])], scale_factor=1.5)
case("interpolate", "nearest_scale_mixed", [T([1, 2, 6, 7])], grad=True, scale_factor=[0.5, 1.7])
case("interpolate", "nearest_recompute", [T([1, 2, 5, 7])], scale_factor=[1.3, 2.6],
     recompute_scale_factor=True)
case("interpolate", "nearest_down_size", [T([1, 1, 9, 11])], size=[4, 3])
case("interpolate", "nearest_exact", [T([1, 2, 5, 7])], grad=True, size=[8, 3],
     mode="nearest-exact")
case("interpolate", "nearest_exact_scale", [T([1, 2, 5, 7])], scale_factor=1.6,
     mode="nearest-exact")
case("interpolate", "nearest_1d", [T([2, 3, 7])], grad=True, size=12)
case("interpolate", "nearest_1d_scale", [T([2, 3, 7])], scale_factor=0.7)
case("interpolate", "linear_1d", [T([2, 3, 7])], grad=True, size=12, mode="linear")
case("interpolate", "linear_1d_align", [T([2, 3, 7])], grad=True, size=5, mode="linear",
     align_corners=True)
case("interpolate", "bilinear_size", [T([2, 2, 4, 5])], grad=True, size=[7, 9], mode="bilinear")
case("interpolate", "bilinear_align", [T([2, 2, 4, 5])], grad=True, size=[7, 9], mode="bilinear",
     align_corners=True)
case("interpolate", "bilinear_scale", [T([1, 2, 5, 6])], grad=True, scale_factor=[1.5, 2.3],
     mode="bilinear")
case("interpolate", "bilinear_scale_align", [T([1, 2, 5, 6])], scale_factor=1.7, mode="bilinear",
     align_corners=True)
case("interpolate", "bilinear_down", [T([1, 2, 9, 10])], grad=True, size=[4, 3],
     mode="bilinear")
case("interpolate", "bilinear_down_scale", [T([1, 2, 9, 10])], scale_factor=0.45,
     mode="bilinear")
case("interpolate", "bilinear_recompute", [T([1, 2, 5, 6])], scale_factor=1.7, mode="bilinear",
     recompute_scale_factor=True)
case("interpolate", "bilinear_to1", [T([1, 2, 5, 6])], size=[1, 6], mode="bilinear",
     align_corners=True)
case("interpolate", "bilinear_noncontig", [HW([1, 2, 4, 5])], size=[6, 3], mode="bilinear")
case("interpolate", "bilinear_float64", [T([1, 2, 4, 5], f64)], size=[7, 3], mode="bilinear")
case("interpolate", "bilinear_bfloat16", [T([1, 2, 4, 5], bf16)], size=[7, 3], mode="bilinear")

# ── pad ────────────────────────────────────────────────────────────────────
case("pad", "constant", [T([2, 3, 4])], grad=True, pad=[1, 2, 0, 1], value=2.5)
case("pad", "constant_crop", [T([2, 3, 5])], grad=True, pad=[-1, 2, 1, -2])
case("pad", "constant_all_crop", [T([2, 4, 5])], grad=True, pad=[-1, 0, 0, -2])
case("pad", "constant_3dims", [T([2, 3, 2, 2])], pad=[1, 0, 0, 1, 1, 1])
case("pad", "constant_noncontig", [HW([2, 3, 4])], pad=[1, 1])
case("pad", "constant_int64", [T([2, 3], i64, data=list(range(6)))], pad=[1, 1, 2, 0], value=7)
case("pad", "reflect_1d", [T([2, 3, 5])], grad=True, pad=[2, 3], mode="reflect")
case("pad", "reflect_1d_unbatched", [T([3, 5])], pad=[4, 1], mode="reflect")
case("pad", "reflect_2d", [T([2, 2, 4, 5])], grad=True, pad=[1, 3, 2, 3], mode="reflect")
case("pad", "reflect_3d", [T([1, 2, 3, 4, 3])], grad=True, pad=[1, 2, 2, 1, 1, 1], mode="reflect")
case("pad", "reflect_negative", [T([1, 2, 6])], grad=True, pad=[-2, 1], mode="reflect")
case("pad", "reflect_noncontig", [HW([2, 3, 4])], pad=[1, 2], mode="reflect")
case("pad", "replicate_1d", [T([2, 3, 4])], grad=True, pad=[3, 1], mode="replicate")
case("pad", "replicate_2d", [T([2, 2, 3, 4])], grad=True, pad=[2, 1, 3, 0], mode="replicate")
case("pad", "replicate_3d", [T([2, 2, 3, 3])], grad=True, pad=[1, 1, 2, 0, 1, 2],
     mode="replicate")
case("pad", "replicate_negative", [T([1, 2, 6])], grad=True, pad=[-2, 3], mode="replicate")
case("pad", "circular_1d", [T([2, 3, 5])], grad=True, pad=[2, 3], mode="circular")
case("pad", "circular_2d", [T([1, 2, 3, 4])], grad=True, pad=[1, 2, 3, 0], mode="circular")
case("pad", "circular_negative", [T([1, 2, 6])], pad=[-2, 1], mode="circular")
case("pad", "circular_negative_2d", [T([1, 2, 5, 6])], grad=True, pad=[1, -2, -1, 2],
     mode="circular")
case("pad", "constant_crop_to_empty", [T([2, 3, 4])], pad=[-2, -2])

# The 2x2 max pool with indices takes whole SIMD blocks on planes of 16 outputs or more (appended
# here so the cases above keep their random draws): ties, NaN and infinities across blocks.
big = [rng.randint(-8, 8) / 4 for _ in range(2 * 2 * 12 * 14)]
for i in range(0, len(big), 37):
    big[i] = nan
for i in range(5, len(big), 53):
    big[i] = inf
for i in range(11, len(big), 29):
    big[i] = -inf
case("max_pool2d_with_indices", "k2_blocks_nan_ties", [T([2, 2, 12, 14], data=big)], grad=True,
     kernel_size=2)
case("max_pool2d_with_indices", "k2_blocks_float64", [T([1, 3, 10, 34], f64)], grad=True,
     kernel_size=2)


def main():
    path = os.path.join(HERE, "conv.json")
    write_cases(path, CASES)
    print(f"wrote {len(CASES)} cases, {os.path.getsize(path)} bytes to {path}")


if __name__ == "__main__":
    main()
