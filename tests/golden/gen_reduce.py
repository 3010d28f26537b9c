#!/usr/bin/python3
"""Writes tests/golden/reduce.json: PyTorch 1.13's results for every reduction in
include/ember/tensor.h and include/ember/reduce.h, read by tests/ops/reduce_test.cpp. Run with
Debian's /usr/bin/python3 (the one with PyTorch 1.13).

The file is {"cases": [case, ...], "accuracy": {...}}, one case per line. A case:
  op      the row name in the C++ table ("sum", "max.dim", "var_mean", ...)
  name    the input variant ("contig", "nchw", "sliced", "expanded", "empty", "f16", ...)
  inputs  [tensor spec]
  args    keyword options: dims (null = all, an int, or a list), keepdim, dtype (a dtype name),
          correction, p, dim
  out     {"dtype", "shape", "data"} (data row-major), or
  outs    a list of those for ops returning a tuple (max.dim, aminmax, var_mean, ...)
  atol    one per output: the difference allowed on top of the row's ulps. For sums (sum,
          nansum, mean, nanmean, the mean of var_mean): 4 * eps(accumulation dtype) * sum|x| over
          the reduced elements, the rounding error of another summation order. For those and for
          prod, norms, var/std and logsumexp on float32/16 inputs, plus PyTorch's own error: its
          largest distance from the same op computed on float64 copies (so ember may be as far
          from PyTorch as PyTorch is from the exact result, e.g. where PyTorch rounds partial
          float16 sums to float16 and ember does not)
  error   instead of out: a substring of ember's message, with torch_error for reference
  ref     "mean_inf": var_mean/std_mean whose mean PyTorch's Welford update turns from +-inf
          into nan (inf - inf once an infinity is followed by more values; the order decides);
          the reference mean there is torch.mean's (ember merges exact block moments).
          "upcast" where PyTorch 1.13 has no CPU kernel for float16 (softmax, prod, cumsum,
          logsumexp): the reference is the op on float32 copies, rounded back (what later
          PyTorch versions do)
A tensor spec is {"dtype", "base", "data", "view"}: a contiguous tensor of shape base holding
data (row-major), then the view ops applied in order: ["t"], ["transpose", d0, d1],
["permute", [dims]], ["slice", dim, start, stop|null, step], ["expand", [sizes]].

"accuracy" holds, for float32 sums of 10M elements, PyTorch's float32 result and the float64
reference, so the C++ test can require ember's error to be no worse than PyTorch's.

Floating values round-trip: float64 as Python's repr, narrower types as the shortest string that
gives the same value through double -> float (checked); non-finite values are "nan"/"inf"/"-inf".
"""
import json
import math
import os
import random
import warnings

import numpy as np
import torch

from golden_json import dtype_name, enc_tensor, enc_values, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
warnings.simplefilter("ignore")

f16, bf16, f32, f64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
i8, u8, i32, i64, b8 = torch.int8, torch.uint8, torch.int32, torch.int64, torch.bool
nan, inf = math.nan, math.inf
rng = random.Random(4321)
torch.manual_seed(0)


# ── inputs ──────────────────────────────────────────────────────────────
KINDS = {
    "real": lambda: round(rng.uniform(-3, 3), 2),
    "pos": lambda: round(rng.uniform(0.5, 1.5), 2),  # products of many stay in range
    "int": lambda: rng.randint(-9, 9),
    "small": lambda: rng.randint(0, 3),  # ties for max/min/argmax
    "sparse": lambda: rng.choice([0, 0, 0, 1, -2, 3]),  # count_nonzero, all, any, norm 0
    "bool": lambda: rng.randint(0, 1),
}
SPECIAL = [1.5, nan, -2.0, inf, 0.5, -inf, 3.0, -0.0, 2.0, 0.0]


class In:
    """A tensor input: a contiguous base filled from `kind`, then view ops."""

    def __init__(self, base, dtype=f32, kind="real", view=(), data=None, fill=None):
        self.base, self.dtype, self.view = list(base), dtype, [list(v) for v in view]
        self.fill = list(fill) if fill else None
        n = math.prod(self.base)
        if fill:
            a, m, offset, scale, shift = fill
            data = [((i * a) % m - offset) / scale + shift for i in range(n)]
        elif data is None:
            if kind == "special":
                data = [SPECIAL[i % len(SPECIAL)] for i in range(n)]
            else:
                gen = KINDS[kind]
                if dtype == u8 and kind in ("int", "real"):
                    gen = lambda: rng.randint(0, 9)  # noqa: E731
                data = [gen() for _ in range(n)]
        if isinstance(data, torch.Tensor):
            data = data.reshape(-1).tolist()
        assert len(data) == n
        # Round through the dtype so the spec holds exactly what the tensor holds.
        self.values = torch.tensor(data, dtype=f64).to(dtype).reshape(self.base)

    def make(self):
        x = self.values.clone()
        for v in self.view:
            if v[0] == "t":
                x = x.t()
            elif v[0] == "transpose":
                x = x.transpose(v[1], v[2])
            elif v[0] == "permute":
                x = x.permute(*v[1])
            elif v[0] == "slice":
                x = x[(slice(None),) * v[1] + (slice(v[2], v[3], v[4]),)]
            elif v[0] == "expand":
                x = x.expand(*v[1])
            else:
                raise ValueError(v)
        return x

    def spec(self):
        data = {"fill": self.fill} if self.fill else enc_values(self.values)
        return {"dtype": dtype_name(self.dtype), "base": self.base, "data": data, "view": self.view}


def L(base, dtype=f32, fill=(7919, 601, 300, 100, 0), **kw):
    """A long input stored as its formula: element i is ((i * a) % m - offset) / scale + shift,
    computed in float64 then rounded to dtype (exact on both sides). Values repeat with period m,
    so max/argmax see ties."""
    return In(base, dtype, fill=fill, **kw)


# The layouts every reduction runs on, as (name, In factory taking dtype and kind).
def contig(shape):
    return lambda dt, kind: In(shape, dt, kind)


LAYOUTS3 = [  # 3-D, logical shape (3, 4, 5)
    ("contig", contig([3, 4, 5])),
    ("permuted", lambda dt, kind: In([4, 5, 3], dt, kind, view=[["permute", [2, 0, 1]]])),
    ("transposed", lambda dt, kind: In([5, 4, 3], dt, kind, view=[["transpose", 0, 2]])),
    ("sliced", lambda dt, kind: In([6, 4, 11], dt, kind,
                                   view=[["slice", 0, 0, None, 2], ["slice", 2, 1, None, 2]])),
    ("expanded", lambda dt, kind: In([3, 1, 5], dt, kind, view=[["expand", [3, 4, 5]]])),
]
LAYOUTS2 = [  # 2-D, logical shape (4, 6)
    ("contig2", contig([4, 6])),
    ("t", lambda dt, kind: In([6, 4], dt, kind, view=[["t"]])),
    ("rowslice", lambda dt, kind: In([12, 6], dt, kind, view=[["slice", 0, 1, None, 3]])),
    ("colslice", lambda dt, kind: In([4, 13], dt, kind, view=[["slice", 1, 0, 12, 2]])),
    ("bcast_row", lambda dt, kind: In([6], dt, kind, view=[["expand", [4, 6]]])),
    ("bcast_col", lambda dt, kind: In([4, 1], dt, kind, view=[["expand", [4, 6]]])),
]
# (N, C, H, W): contiguous, and channels-last (an NHWC base permuted to NCHW)
NCHW = [
    ("nchw", contig([2, 3, 4, 5])),
    ("nhwc", lambda dt, kind: In([2, 4, 5, 3], dt, kind, view=[["permute", [0, 3, 1, 2]]])),
]
DIMS3 = [None, 0, 1, 2, -1, [0, 2], [-1, 0], [1, 2], [0, 1], [0, 1, 2]]
DIMS2 = [None, 0, 1, -1, [0, 1]]
DIMS4 = [[0, 2, 3], [1], [2, 3], [0, 3]]


# ── the torch side of each op ───────────────────────────────────────────
def num(v):
    return float(v) if isinstance(v, str) else v


def dims_arg(d):
    return () if d is None else d


def torch_dtype(a):
    return getattr(torch, a["dtype"]) if a.get("dtype") else None


def sum_like(fn):
    def run(x, a):
        if a.get("dims") is None and not a.get("keepdim"):
            return fn(x, dtype=torch_dtype(a))
        return fn(x, dims_arg(a.get("dims")), keepdim=a.get("keepdim", False),
                  dtype=torch_dtype(a))
    return run


def var_like(fn):
    return lambda x, a: fn(x, dim=a.get("dims"), correction=a.get("correction", 1),
                           keepdim=a.get("keepdim", False))


def dim_or_all(method):
    def run(x, a):
        if a.get("dim") is None:
            return getattr(x, method)()
        return getattr(x, method)(a["dim"], keepdim=a.get("keepdim", False))
    return run


TORCH = {
    "sum": sum_like(torch.sum),
    "nansum": sum_like(torch.nansum),
    "mean": sum_like(torch.mean),
    "nanmean": lambda x, a: torch.nanmean(x, dim=a.get("dims"), keepdim=a.get("keepdim", False)),
    "prod": lambda x, a: (x.prod(dtype=torch_dtype(a)) if a.get("dim") is None else
                          x.prod(a["dim"], keepdim=a.get("keepdim", False), dtype=torch_dtype(a))),
    "var": var_like(torch.var),
    "std": var_like(torch.std),
    "var_mean": var_like(torch.var_mean),
    "std_mean": var_like(torch.std_mean),
    "max": lambda x, a: x.max(),
    "min": lambda x, a: x.min(),
    "max.dim": lambda x, a: tuple(x.max(a["dim"], keepdim=a.get("keepdim", False))),
    "min.dim": lambda x, a: tuple(x.min(a["dim"], keepdim=a.get("keepdim", False))),
    "argmax": lambda x, a: x.argmax(a.get("dim"), keepdim=a.get("keepdim", False)),
    "argmin": lambda x, a: x.argmin(a.get("dim"), keepdim=a.get("keepdim", False)),
    "amax": lambda x, a: torch.amax(x, dims_arg(a.get("dims")), keepdim=a.get("keepdim", False)),
    "amin": lambda x, a: torch.amin(x, dims_arg(a.get("dims")), keepdim=a.get("keepdim", False)),
    "aminmax": lambda x, a: tuple(torch.aminmax(x, dim=a.get("dim"),
                                                keepdim=a.get("keepdim", False))),
    "linalg_vector_norm": lambda x, a: torch.linalg.vector_norm(
        x, num(a["p"]), dim=a.get("dims"), keepdim=a.get("keepdim", False)),
    "norm": lambda x, a: x.norm(num(a["p"]), dim=a.get("dims"), keepdim=a.get("keepdim", False)),
    "logsumexp": lambda x, a: torch.logsumexp(x, a["dims"], keepdim=a.get("keepdim", False)),
    "softmax": lambda x, a: torch.softmax(x, a["dim"], dtype=torch_dtype(a)),
    "log_softmax": lambda x, a: torch.log_softmax(x, a["dim"], dtype=torch_dtype(a)),
    "cumsum": lambda x, a: torch.cumsum(x, a["dim"], dtype=torch_dtype(a)),
    "cumprod": lambda x, a: torch.cumprod(x, a["dim"], dtype=torch_dtype(a)),
    "all": dim_or_all("all"),
    "any": dim_or_all("any"),
    "count_nonzero": lambda x, a: torch.count_nonzero(x, dim=a.get("dims")),
}
# Sums whose result may differ from PyTorch's by the rounding of another summation order.
SUMS = {"sum", "nansum", "mean", "nanmean"}
# Ops whose float32/16 results may also differ by PyTorch's own rounding error.
ERR_OPS = SUMS | {"prod", "linalg_vector_norm", "norm", "var", "std", "var_mean", "std_mean",
                  "logsumexp"}

cases = []


def norm_dims(d, ndim):
    if d is None:
        return list(range(ndim))
    d = [d] if isinstance(d, int) else d
    return [x % max(ndim, 1) for x in d] if ndim else []


def sum_atol(x, a, op):
    """4 * eps(acc) * sum|x| over the reduced elements (max over outputs), /count for means."""
    acc = f64 if (a.get("dtype") == "float64" or x.dtype == f64) else f32
    xa = x.to(f64).abs().nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
    dims = norm_dims(a.get("dims"), x.dim())
    s = xa.sum(dims) if x.dim() else xa
    if s.numel() == 0:
        return 0.0
    v = float(s.max())
    if op in ("mean", "nanmean"):
        count = math.prod(x.shape[d] for d in dims) if x.dim() else 1
        v /= max(count, 1)
    return 4 * torch.finfo(acc).eps * v


def case(op, name, inp, ref=None, error=None, **args):
    """Runs op on the input in PyTorch and records the case (or the error, whose ember
    substring is `error`)."""
    x = inp.make()
    c = {"op": op, "name": name, "inputs": [inp.spec()], "args": args}
    if ref is None and x.dtype in (f16, bf16) and error is None:
        try:
            TORCH[op](x, args)
        except RuntimeError as e:
            assert "not implemented for" in str(e), e
            ref = "upcast"
    try:
        if ref == "upcast":
            y = TORCH[op](x.float(), args)
            to = x.dtype if not args.get("dtype") else torch_dtype(args)
            y = tuple(t.to(to) if t.dtype.is_floating_point else t for t in y) \
                if isinstance(y, tuple) else (y.to(to) if y.dtype.is_floating_point else y)
            c["ref"] = "upcast"
        else:
            y = TORCH[op](x, args)
    except (RuntimeError, IndexError) as e:
        assert error is not None, f"{op}/{name} {args}: unexpected error {e}"
        msg = str(e).split("\n")[0]
        assert error in msg or error.lower() in msg.lower(), (error, msg)
        c["error"], c["torch_error"] = error, msg
        cases.append(c)
        return
    assert error is None, f"{op}/{name}: expected an error, got {y}"
    ys = list(y) if isinstance(y, tuple) else [y]
    if op in ("var_mean", "std_mean"):
        m = torch.mean(x, dim=args.get("dims"), keepdim=args.get("keepdim", False))
        artifact = ys[1].isnan() & m.isinf()
        if artifact.any():
            ys[1] = torch.where(artifact, m, ys[1])
            c["ref"] = "mean_inf"
    if isinstance(y, tuple):
        c["outs"] = [enc_tensor(t) for t in ys]
    else:
        c["out"] = enc_tensor(ys[0])
    atol = [0.0] * len(ys)
    floating = x.dtype.is_floating_point or args.get("dtype") in ("float32", "float64")
    if op in SUMS and floating:
        atol[0] = sum_atol(x, args, op)
    if op in ("var_mean", "std_mean"):
        atol[1] = sum_atol(x, args, "mean")
    if op in ERR_OPS and floating and x.dtype != f64 and args.get("dtype") != "float64":
        exact = TORCH[op](x.to(f64), {k: v for k, v in args.items() if k != "dtype"})
        exact = list(exact) if isinstance(exact, tuple) else [exact]
        for k, (t, e) in enumerate(zip(ys, exact)):
            d = (t.to(f64) - e).abs()
            d = d[d.isfinite()]
            if d.numel():
                atol[k] += float(d.max())
    if any(atol):
        c["atol"] = atol
    cases.append(c)


def err(op, name, inp, error, **args):
    case(op, name, inp, error=error, **args)


# ── sums, means, products ───────────────────────────────────────────────
for op in ["sum", "nansum", "mean"]:
    for lname, mk in LAYOUTS3:
        for d in DIMS3:
            case(op, lname, mk(f32, "real"), dims=d)
        case(op, lname, mk(f32, "real"), dims=[0, 2], keepdim=True)
        case(op, lname, mk(f32, "real"), dims=None, keepdim=True)
        case(op, lname, mk(f32, "real"), dims=-2, keepdim=True)
    for lname, mk in LAYOUTS2:
        for d in DIMS2:
            case(op, lname, mk(f32, "real"), dims=d)
        case(op, lname, mk(f32, "real"), dims=0, keepdim=True)
    for lname, mk in NCHW:
        for d in DIMS4:
            case(op, lname, mk(f32, "real"), dims=d)
        case(op, lname, mk(f32, "real"), dims=[0, 2, 3], keepdim=True)
    # dtypes: float64, float16/bfloat16 (accumulate in float), dtype= conversions
    for dt in (f64, f16, bf16):
        for d in (None, 0, [0, 2], -1):
            case(op, dtype_name(dt), In([3, 4, 5], dt), dims=d)
        case(op, dtype_name(dt) + "_t", In([5, 4, 3], dt, view=[["transpose", 0, 2]]), dims=[1, 2])
    case(op, "dtype_f64", In([3, 4, 5]), dims=1, dtype="float64")
    case(op, "dtype_f64", In([3, 4, 5]), dims=None, dtype="float64")
    case(op, "dtype_f32_from_f16", In([3, 40], f16), dims=1, dtype="float32")
    # long runs: SIMD bodies with tails, and the pairwise split above 4096 elements
    case(op, "long", L([3, 5003]), dims=1)
    case(op, "long", L([10007]), dims=None)
    case(op, "long_cols", L([1030, 7]), dims=0)
    case(op, "long_cols", L([300, 67]), dims=0)
    # 0-d and empty
    case(op, "0d", In([], data=[2.5]), dims=None)
    case(op, "0d", In([], data=[2.5]), dims=0)
    case(op, "0d", In([], data=[2.5]), dims=-1, keepdim=True)
    case(op, "empty", In([0, 3]), dims=None)
    case(op, "empty", In([0, 3]), dims=0)
    case(op, "empty", In([0, 3]), dims=1)
    case(op, "empty", In([2, 0, 3]), dims=[0, 1], keepdim=True)
    # NaN and infinities
    case(op, "special", In([4, 5], kind="special"), dims=None)
    case(op, "special", In([4, 5], kind="special"), dims=0)
    case(op, "special", In([4, 5], kind="special"), dims=1)
    # errors
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dims=2)
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dims=[0, -3])
    err(op, "dup_dims", In([3, 4, 5]), "appears multiple times", dims=[1, -2])
    err(op, "dup_dims_0d", In([], data=[1.0]), "appears multiple times", dims=[0, -1])

# integer and bool inputs: sum/nansum promote to int64; mean raises
for op in ["sum", "nansum"]:
    for dt in (i8, u8, i32, i64, b8):
        kind = "bool" if dt == b8 else "int"
        for d in (None, 0, [0, 2], -1):
            case(op, dtype_name(dt), In([3, 4, 5], dt, kind), dims=d)
        case(op, dtype_name(dt) + "_t", In([5, 4, 3], dt, kind, view=[["transpose", 0, 2]]), dims=[0, 1])
        case(op, dtype_name(dt) + "_cols", In([70, 9], dt, kind), dims=0)
    case(op, "int_dtype_i32", In([3, 4], i32, "int"), dims=1, dtype="int32")
    case(op, "int_dtype_f32", In([3, 4], i32, "int"), dims=None, dtype="float32")
    case(op, "bool_dtype_f32", In([3, 4], b8, "bool"), dims=0, dtype="float32")
    case(op, "empty_int", In([0, 3], i32, "int"), dims=0)
case("sum", "int_dtype_i8", In([3, 4], i32, "int"), dims=None, dtype="int8")
case("sum", "bool_dtype_bool", In([3, 4], b8, "bool"), dims=1, dtype="bool")
case("sum", "f32_dtype_i64", In([3, 4], f32, "int"), dims=0, dtype="int64")
for dt in (i32, i64, u8, b8):
    err("mean", "int_" + dtype_name(dt), In([3, 4], dt, "int" if dt != b8 else "bool"),
        "could not infer output dtype", dims=None)
case("mean", "int_dtype_f32", In([3, 4], i32, "int"), dims=1, dtype="float32")
case("mean", "int_dtype_f64", In([3, 4], i64, "int"), dims=None, dtype="float64")

# nanmean
for lname, mk in LAYOUTS3[:4]:
    for d in (None, 0, [0, 2], -1):
        case("nanmean", lname, mk(f32, "special"), dims=d)
case("nanmean", "special_keepdim", In([4, 5], kind="special"), dims=[1], keepdim=True)
case("nanmean", "all_nan", In([2, 3], data=[nan] * 6), dims=1)
case("nanmean", "f64", In([3, 4], f64, "real"), dims=0)
case("nanmean", "f16", In([3, 4], f16, "special"), dims=0)
case("nanmean", "empty", In([0, 3]), dims=0)
err("nanmean", "int", In([3, 4], i64, "int"), "floating point", dims=None)

# prod: all, one dim; ints -> int64; float16 (no 1.13 kernel: upcast reference)
for lname, mk in LAYOUTS3 + LAYOUTS2:
    for d in (None, 0, -1):
        case("prod", lname, mk(f32, "pos"), dim=d)
    case("prod", lname, mk(f32, "pos"), dim=1, keepdim=True)
for dt in (i32, i64, u8, b8):
    kind = "bool" if dt == b8 else "small"
    for d in (None, 0, 1):
        case("prod", dtype_name(dt), In([3, 4], dt, kind), dim=d)
case("prod", "f64", In([3, 4, 5], f64, "pos"), dim=1)
case("prod", "bf16", In([3, 4, 5], bf16, "pos"), dim=1)
case("prod", "f16", In([3, 4, 5], f16, "pos"), dim=1)
case("prod", "dtype_f64", In([3, 4], f32, "pos"), dim=0, dtype="float64")
case("prod", "int_dtype_f32", In([3, 4], i32, "small"), dim=None, dtype="float32")
case("prod", "long", L([3, 5003], fill=(3, 7, 3, 1e4, 1)), dim=1)
case("prod", "special", In([4, 5], kind="special"), dim=0)
case("prod", "0d", In([], data=[2.5]), dim=None)
case("prod", "0d", In([], data=[2.5]), dim=0)
case("prod", "empty", In([0, 3]), dim=None)
case("prod", "empty", In([0, 3]), dim=0)
case("prod", "empty", In([0, 3]), dim=1)
err("prod", "bad_dim", In([3, 4]), "dimension out of range", dim=-3)

# ── variance and standard deviation ─────────────────────────────────────
for op in ["var", "std", "var_mean", "std_mean"]:
    for lname, mk in LAYOUTS3:
        for d in (None, 0, [0, 2], -1, [1, 2]):
            case(op, lname, mk(f32, "real"), dims=d)
        case(op, lname, mk(f32, "real"), dims=[0, 2], keepdim=True)
    for corr in (0, 1, 2):
        case(op, f"corr{corr}", In([3, 4, 5]), dims=1, correction=corr)
        case(op, f"corr{corr}", In([3, 4, 5]), dims=None, correction=corr)
    for lname, mk in NCHW:
        case(op, lname, mk(f32, "real"), dims=[0, 2, 3])
        case(op, lname, mk(f32, "real"), dims=[0, 2, 3], keepdim=True, correction=0)
    for dt in (f64, f16, bf16):
        case(op, dtype_name(dt), In([3, 4, 5], dt), dims=[0, 2])
    case(op, "n_le_correction", In([3, 1]), dims=1)  # n == correction: inf / nan
    case(op, "n_le_correction", In([3, 2]), dims=1, correction=5)
    case(op, "n_le_correction", In([3, 2], data=[1.0] * 6), dims=1, correction=2)  # 0/0
    case(op, "long", L([2, 5000]), dims=1)
    case(op, "offset", In([2, 300], data=[1e4 + rng.uniform(-1, 1) for _ in range(600)]), dims=1)
    case(op, "special", In([4, 5], kind="special"), dims=0)
    case(op, "0d", In([], data=[2.5]), dims=None)
    case(op, "empty", In([0, 3]), dims=0)
    case(op, "empty", In([0, 3]), dims=1)
    err(op, "int", In([3, 4], i64, "int"), "floating point", dims=None)
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dims=[3])

# ── max / min / argmax / argmin / amax / amin / aminmax ─────────────────
for op in ["max", "min"]:
    for lname, mk in LAYOUTS3 + LAYOUTS2:
        case(op, lname, mk(f32, "real"))
    for dt in (f64, f16, bf16, i8, u8, i32, i64, b8):
        case(op, dtype_name(dt), In([3, 4], dt, "bool" if dt == b8 else "int"))
    case(op, "long", L([10007]))
    case(op, "nan", In([4, 5], kind="special"))
    case(op, "0d", In([], data=[-1.5]))
    err(op, "empty", In([0, 3]), "Expected reduction dim to be specified")

for op in ["max.dim", "min.dim", "argmax", "argmin"]:
    for lname, mk in LAYOUTS3:
        for d in (0, 1, 2, -1):
            case(op, lname, mk(f32, "small"), dim=d)  # small integers: many ties
        case(op, lname, mk(f32, "real"), dim=1, keepdim=True)
    for lname, mk in LAYOUTS2:
        for d in (0, 1):
            case(op, lname, mk(f32, "small"), dim=d)
    for dt in (f64, f16, bf16, i8, u8, i32, i64):
        case(op, dtype_name(dt), In([3, 4], dt, "small"), dim=1)
    case(op, "nan", In([4, 5], kind="special"), dim=0)
    case(op, "nan", In([4, 5], kind="special"), dim=1)
    case(op, "nan_first", In([2, 3], data=[nan, 5.0, nan, 1.0, 2.0, nan]), dim=1)
    case(op, "inf", In([2, 3], data=[-inf, -inf, -inf, inf, inf, 1.0]), dim=1)
    case(op, "long", L([3, 5003]), dim=1)
    case(op, "long", L([1030, 3]), dim=0)
    case(op, "0d", In([], data=[-1.5]), dim=0)
    case(op, "0d", In([], data=[-1.5]), dim=-1, keepdim=True)
    case(op, "empty_other", In([0, 3]), dim=1)
    err(op, "empty", In([0, 3]), "to have non-zero size", dim=0)
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dim=2)
case("max.dim", "bool", In([3, 4], b8, "bool"), dim=1)
case("min.dim", "bool", In([3, 4], b8, "bool"), dim=0)
for op in ["argmax", "argmin"]:  # global: index into the flattened tensor
    for lname, mk in LAYOUTS3 + LAYOUTS2:
        case(op, lname, mk(f32, "small"))
    case(op, "keepdim", In([3, 4], kind="small"), keepdim=True)
    case(op, "keepdim_t", In([4, 3], kind="small", view=[["t"]]), keepdim=True)
    case(op, "nan", In([4, 5], kind="special"))
    case(op, "long", L([10007]))
    case(op, "int", In([3, 4], i32, "small"))
    case(op, "0d", In([], data=[-1.5]))
    case(op, "0d", In([], data=[-1.5]), keepdim=True)
    err(op, "empty", In([0, 3]), "Expected reduction dim to be specified")

for op in ["amax", "amin"]:
    for lname, mk in LAYOUTS3:
        for d in DIMS3:
            case(op, lname, mk(f32, "real"), dims=d)
        case(op, lname, mk(f32, "real"), dims=[0, 2], keepdim=True)
    for lname, mk in LAYOUTS2:
        for d in DIMS2:
            case(op, lname, mk(f32, "real"), dims=d)
    for lname, mk in NCHW:
        case(op, lname, mk(f32, "real"), dims=[0, 2, 3])
    for dt in (f64, f16, bf16, i8, u8, i32, i64, b8):
        kind = "bool" if dt == b8 else "int"
        for d in (None, 0, [0, 2]):
            case(op, dtype_name(dt), In([3, 4, 5], dt, kind), dims=d)
    case(op, "nan", In([4, 5], kind="special"), dims=None)
    case(op, "nan", In([4, 5], kind="special"), dims=0)
    case(op, "nan", In([4, 5], kind="special"), dims=1)
    case(op, "nan_long", In([2, 100], data=[nan if i == 137 else i * 0.5 for i in range(200)]),
         dims=1)
    case(op, "nan_long", In([100, 2], data=[nan if i == 137 else i * 0.5 for i in range(200)]),
         dims=0)
    case(op, "long", L([3, 5003]), dims=1)
    case(op, "long", L([10007]), dims=None)
    case(op, "long_cols", L([1030, 7]), dims=0)
    case(op, "0d", In([], data=[-1.5]), dims=None)
    case(op, "empty_other", In([0, 3]), dims=1)
    err(op, "empty", In([0, 3]), "Expected reduction dim 0 to have non-zero size", dims=0)
    err(op, "empty_all", In([0, 3]), "Expected reduction dim", dims=None)
    err(op, "dup_dims", In([3, 4]), "appears multiple times", dims=[0, 0])

for lname, mk in LAYOUTS3 + LAYOUTS2:
    case("aminmax", lname, mk(f32, "real"))
    case("aminmax", lname, mk(f32, "real"), dim=1)
    case("aminmax", lname, mk(f32, "real"), dim=0, keepdim=True)
for dt in (f64, f16, bf16, i32, u8, b8):
    case("aminmax", dtype_name(dt), In([3, 4], dt, "bool" if dt == b8 else "int"))
    case("aminmax", dtype_name(dt), In([3, 4], dt, "bool" if dt == b8 else "int"), dim=0)
case("aminmax", "nan", In([4, 5], kind="special"))
case("aminmax", "nan", In([4, 5], kind="special"), dim=1)
case("aminmax", "long", L([10007]))
case("aminmax", "long", L([3, 5003]), dim=-1)
case("aminmax", "0d", In([], data=[-1.5]))
case("aminmax", "empty_other", In([0, 3]), dim=1)
err("aminmax", "empty", In([0, 3]), "cannot compute aminmax over an empty dimension")
err("aminmax", "empty", In([0, 3]), "Expected reduction dim 0 to have non-zero size", dim=0)

# ── norms ───────────────────────────────────────────────────────────────
PS = [0, 1, 2, 3, inf, -inf, 0.5]
for p in PS:
    pj = p if math.isfinite(p) else ("inf" if p > 0 else "-inf")
    for lname, mk in LAYOUTS3:
        for d in (None, 1, [0, 2]):
            case("linalg_vector_norm", lname, mk(f32, "sparse"), p=pj, dims=d)
    case("linalg_vector_norm", "t", In([6, 4], view=[["t"]]), p=pj, dims=0, keepdim=True)
    case("linalg_vector_norm", "nchw", In([2, 3, 4, 5]), p=pj, dims=[0, 2, 3])
    case("linalg_vector_norm", "f64", In([3, 4], f64), p=pj, dims=1)
    case("linalg_vector_norm", "f16", In([3, 4], f16), p=pj, dims=1)
    case("linalg_vector_norm", "bf16", In([3, 4], bf16), p=pj, dims=None)
    case("linalg_vector_norm", "long", L([2, 5001]), p=pj, dims=1)
    case("linalg_vector_norm", "special", In([4, 5], kind="special"), p=pj, dims=0)
    case("linalg_vector_norm", "0d", In([], data=[-1.5]), p=pj)
    if math.isfinite(p):
        case("linalg_vector_norm", "empty", In([0, 3]), p=pj, dims=0)
    else:
        err("linalg_vector_norm", "empty", In([0, 3]), "", p=pj, dims=0)
    case("norm", "contig", In([3, 4, 5]), p=pj, dims=[1])
    case("norm", "t", In([6, 4], view=[["t"]]), p=pj, dims=None)
err("linalg_vector_norm", "int", In([3, 4], i64, "int"), "floating point", p=2)
case("linalg_vector_norm", "p=-1", In([3, 4], kind="pos"), p=-1, dims=1)

# ── logsumexp ───────────────────────────────────────────────────────────
for lname, mk in LAYOUTS3:
    for d in (0, -1, [0, 2], [0, 1, 2]):
        case("logsumexp", lname, mk(f32, "real"), dims=d)
    case("logsumexp", lname, mk(f32, "real"), dims=[1], keepdim=True)
for lname, mk in LAYOUTS2:
    for d in (0, 1):
        case("logsumexp", lname, mk(f32, "real"), dims=d)
INFS = [-inf, -inf, -inf, 1.0, -inf, 2.0, inf, 3.0, inf, -inf, inf, inf, nan, 1.0, 2.0, 3.0]
case("logsumexp", "inf", In([4, 4], data=INFS), dims=1)
case("logsumexp", "inf", In([4, 4], data=INFS), dims=0)
case("logsumexp", "big", In([2, 3], data=[1000.0, 1001.0, 999.0, -1000.0, -1001.0, -999.0]), dims=1)
case("logsumexp", "f64", In([3, 4], f64), dims=1)
case("logsumexp", "f16", In([3, 4], f16), dims=1)
case("logsumexp", "bf16", In([3, 4], bf16), dims=1)
case("logsumexp", "int", In([3, 4], i64, "int"), dims=1)
case("logsumexp", "long", L([2, 5000]), dims=1)
case("logsumexp", "0d", In([], data=[-1.5]), dims=0)
case("logsumexp", "empty", In([0, 3]), dims=0)
case("logsumexp", "empty", In([0, 3]), dims=1)

# ── softmax / log_softmax over every dim of a 3-D tensor ────────────────
masked = torch.tensor([round(rng.uniform(-3, 3), 2) for _ in range(60)], dtype=f64).reshape(3, 4, 5)
masked[:, 1, 2] = -inf  # a fully masked lane along dim 0
masked[0, :, 3] = -inf  # ... along dim 1
masked[1, 2, :] = -inf  # ... along dim 2
masked[2, 0, 0] = masked[2, 3, 1] = masked[0, 0, 4] = -inf  # partly masked lanes
for op in ["softmax", "log_softmax"]:
    for lname, mk in LAYOUTS3:
        for d in (0, 1, 2, -1):
            case(op, lname, mk(f32, "real"), dim=d)
    for lname, mk in LAYOUTS2[:3]:
        for d in (0, 1):
            case(op, lname, mk(f32, "real"), dim=d)
    for d in (0, 1, 2):
        case(op, "masked", In([3, 4, 5], data=masked), dim=d)
        case(op, "masked_t", In([5, 4, 3], data=masked.permute(2, 1, 0),
                                view=[["transpose", 0, 2]]), dim=d)
    for d in (0, 1, 3):
        case(op, "nchw", In([2, 3, 4, 5]), dim=d)
    case(op, "big", In([2, 3], data=[1000.0, 1001.0, 999.0, -1000.0, -1001.0, -999.0]), dim=1)
    case(op, "inf", In([4, 4], data=INFS), dim=1)
    case(op, "long", L([2, 5003]), dim=1)
    case(op, "long_cols", L([70, 37]), dim=0)
    case(op, "f64", In([3, 4, 5], f64), dim=1)
    case(op, "f64", In([3, 4, 5], f64), dim=2)
    case(op, "bf16", In([3, 4, 5], bf16), dim=2)
    case(op, "bf16", In([3, 4, 5], bf16), dim=0)
    case(op, "f16", In([3, 4, 5], f16), dim=2)
    case(op, "f16", In([3, 4, 5], f16), dim=1)
    case(op, "dtype_f64", In([3, 4, 5]), dim=2, dtype="float64")
    case(op, "dtype_f32_from_f16", In([3, 4, 5], f16), dim=2, dtype="float32")
    case(op, "dtype_f32_from_int", In([3, 5], i64, "int"), dim=1, dtype="float32")
    case(op, "0d", In([], data=[-1.5]), dim=0)
    case(op, "empty", In([0, 3]), dim=1)
    case(op, "empty", In([0, 3]), dim=0)
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dim=2)

# ── cumsum / cumprod ────────────────────────────────────────────────────
for op in ["cumsum", "cumprod"]:
    kind = "pos" if op == "cumprod" else "real"
    for lname, mk in LAYOUTS3:
        for d in (0, 1, 2, -1):
            case(op, lname, mk(f32, kind), dim=d)
    for lname, mk in LAYOUTS2:
        for d in (0, 1):
            case(op, lname, mk(f32, kind), dim=d)
    for dt in (i8, u8, i32, i64, b8):
        for d in (0, 1):
            case(op, dtype_name(dt), In([3, 4], dt, "bool" if dt == b8 else "small"), dim=d)
    case(op, "f64", In([3, 4, 5], f64, kind), dim=1)
    case(op, "bf16", In([3, 4, 5], bf16, kind), dim=1)
    case(op, "f16", In([3, 4, 5], f16, kind), dim=1)
    case(op, "dtype_f64", In([3, 4], f32, kind), dim=1, dtype="float64")
    case(op, "int_dtype_f32", In([3, 4], i32, "small"), dim=1, dtype="float32")
    case(op, "int_dtype_i32", In([3, 4], i32, "small"), dim=0, dtype="int32")
    case(op, "special", In([4, 5], kind="special"), dim=1)
    case(op, "long", L([2, 3000], fill=(7919, 601, 300, 1e4, 1)), dim=1)
    case(op, "0d", In([], data=[-1.5]), dim=0)
    case(op, "empty", In([0, 3]), dim=0)
    err(op, "bad_dim", In([3, 4]), "dimension out of range", dim=-3)

# ── all / any / count_nonzero ───────────────────────────────────────────
for op in ["all", "any"]:
    for lname, mk in LAYOUTS3 + LAYOUTS2:
        for d in (None, 0, -1):
            case(op, lname, mk(b8, "bool"), dim=d)
        case(op, lname, mk(f32, "sparse"), dim=1, keepdim=True)
    for dt in (f32, f64, f16, i8, u8, i32, i64):
        for d in (None, 1):
            case(op, dtype_name(dt), In([3, 4], dt, "sparse"), dim=d)
    case(op, "ones", In([3, 4], b8, data=[1] * 12), dim=None)
    case(op, "zeros", In([3, 4], b8, data=[0] * 12), dim=1)
    case(op, "nan", In([4, 5], kind="special"), dim=1)
    case(op, "long", L([3, 5003], b8, fill=(7919, 20011, 5, 1, 0)), dim=1)
    case(op, "long", L([10007], u8, fill=(7919, 251, 0, 1, 0)), dim=None)
    case(op, "0d", In([], b8, data=[1]))
    case(op, "empty", In([0, 3], b8))
    case(op, "empty", In([0, 3], b8), dim=0)
    case(op, "empty", In([0, 3], u8), dim=1)
    err(op, "bad_dim", In([3, 4], b8, "bool"), "dimension out of range", dim=2)

for lname, mk in LAYOUTS3 + LAYOUTS2:
    for d in (None, 1, [0, -1]):
        case("count_nonzero", lname, mk(f32, "sparse"), dims=d)
for dt in (f64, f16, i32, u8, b8):
    case("count_nonzero", dtype_name(dt), In([3, 4], dt, "bool" if dt == b8 else "sparse"), dims=[1])
case("count_nonzero", "nan", In([4, 5], kind="special"), dims=None)
case("count_nonzero", "0d", In([], data=[-1.5]), dims=None)
case("count_nonzero", "empty", In([0, 3]), dims=[0])
err("count_nonzero", "dup_dims", In([3, 4]), "appears multiple times", dims=[1, -1])


# ── accuracy of long float32 sums ───────────────────────────────────────
def accuracy():
    """PyTorch's float32 sum of 10M elements and the exact (float64, fsum) reference."""
    out = {}
    n = 10_000_000
    x = torch.full((n,), 0.1, dtype=f32)
    out["tenth"] = {"n": n, "torch": float(x.sum()), "ref": float(np.float32(0.1)) * n}  # exact in float64
    torch.manual_seed(0)
    r = torch.randn(n, dtype=f32)
    out["randn"] = {"n": n, "seed": 0, "torch": float(r.sum()),
                    "ref": math.fsum(r.to(f64).tolist()),
                    "check": [float(v) for v in r[:4].tolist()]}
    u = torch.rand(n, dtype=f32)  # all positive: the error grows with n, nothing cancels
    out["rand"] = {"n": n, "seed": 0, "after": "randn", "torch": float(u.sum()),
                   "ref": math.fsum(u.to(f64).tolist()),
                   "check": [float(v) for v in u[:4].tolist()]}
    # the same numbers as a (10000, 1000) matrix, summed along each dim: the largest error
    m = u.view(10000, 1000)
    for d in (0, 1):
        exact = m.to(f64).sum(d)
        out[f"rand_dim{d}"] = {"torch_max_err": float((m.sum(d).to(f64) - exact).abs().max())}
    return out


if __name__ == "__main__":
    assert torch.__version__.startswith("1.13"), torch.__version__
    acc = accuracy()
    path = os.path.join(HERE, "reduce.json")
    write_cases(path, cases, head='"accuracy": ' + json.dumps(acc) + ",\n")
    print(f"{len(cases)} cases -> {path} ({os.path.getsize(path) // 1024} KiB)")
