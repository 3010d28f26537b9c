"""Writes tests/golden/indexing.json: PyTorch 1.13's results for tests/ops/indexing_test.cpp and
tests/ops/sort_test.cpp (advanced indexing, gather/scatter, rearranging, searching, sorting).

Run with the reference PyTorch: /usr/bin/python3 tests/golden/gen_indexing.py
Each entry maps a name to a tensor: {"dtype": "int64", "shape": [2, 3], "data": [...]}, data in
row-major order, numbers as tests/golden/golden_json.py writes them. Inputs
that the C++ side cannot rebuild from a formula (random values) are stored too, named "*/in".
"""
import json
import os

import torch

from golden_json import enc_tensor

assert torch.__version__.startswith("1.13"), torch.__version__

out = {}


def rec(name, t):
    assert name not in out, name
    out[name] = enc_tensor(t)


def pair(name, vi):
    rec(name + "/values", vi[0])
    rec(name + "/indices", vi[1])


T = lambda *a, **k: torch.tensor(*a, **k)  # noqa: E731
L = lambda v: torch.tensor(v, dtype=torch.int64)  # noqa: E731
nan = float("nan")

# ── advanced indexing ────────────────────────────────────────────────────────────────────────
t = torch.arange(20).reshape(4, 5)
x = torch.arange(120).reshape(2, 3, 4, 5)
rec("index/gt10", t[t > 10])
rec("index/mod3", t[t % 3 == 0])
rec("index/rows", t[L([0, 2, 3])])
rec("index/neg", t[L([-1, 0])])
rec("index/dup", t[L([1, 1, 1])])
rec("index/2d", t[L([[0, 1], [2, 3]])])
rec("index/pair", t[L([0, 2]), L([1, 4])])
rec("index/bcast", t[L([[0], [2]]), L([1, 3, 4])])
rec("index/slice_tensor", t[1:, L([0, 4])])
rec("index/tensor_slice", t[L([3, 1]), 1:4])
rec("index/sep", x[:, L([0, 2]), :, L([1, 3])])
rec("index/sep_front", x[L([1, 0]), :, L([3, 2])])
rec("index/adjacent", x[:, L([0, 2]), L([1, 3])])
rec("index/ellipsis", x[..., L([0, 4])])
rec("index/none_int", x[None, 1, L([0, 2])])
rec("index/int_between", x[L([0, 1]), 1, L([2, 3])])
rec("index/int_slice", x[0, :, L([1, 2]), 1:3])
m23 = T([[True, False, True], [False, True, True]])
rec("index/mask_lead", x[m23])
m34 = (torch.arange(12).reshape(3, 4) % 5) < 2
rec("index/mask_mid", x[:, m34])
rec("index/mask_and_tensor", x[1, m34, L([0, 4, 2, 1, 3, 0])[: int(m34.sum())]])
rec("index/true", t[True])
rec("index/false", t[False])
rec("index/true_tensor", t[True, L([0, 1])])
rec("index/uint8", t[T([1, 0, 0, 1], dtype=torch.uint8)])
tt = t.t()
rec("index/noncontig_rows", tt[L([1, 3])])
rec("index/noncontig_mask", tt[tt > 5])
rec("index/empty", t[L([])])
rec("index/empty_cols", t[:, L([])])
rec("index/empty_mask", t[t > 100])

# index_put_
a = torch.zeros(4, 5)
a[L([0, 2])] = T([1.0, 2, 3, 4, 5])
rec("put/rows", a)
a = t.clone()
a[t > 10] = -1
rec("put/mask_scalar", a)
rec("put/acc_1d", torch.zeros(5).index_put_((L([0, 1, 1, 3, 1]),), T([1.0, 2, 3, 4, 5]),
                                             accumulate=True))
rec("put/acc_2d", torch.zeros(3, 3).index_put_((L([0, 0, 2]), L([1, 1, 2])), T([1.0, 2, 3]),
                                                accumulate=True))
# PyTorch's Python index_put_ takes no slices; a broadcast row index is the same as ':'.
rec("put/acc_cols", torch.ones(3, 4).index_put_((L([[0], [1], [2]]), L([1, 1, 3])),
                                                 torch.arange(9.0).reshape(3, 3), accumulate=True))
a = torch.zeros(2, 3, 4)
a[L([0, 1]), :, L([1, 2])] = torch.arange(6.0).reshape(2, 3)
rec("put/sep", a)
a = torch.zeros(5, 4)
a.t()[L([1])] = 7
rec("put/noncontig", a)
a = torch.zeros(3, 4, dtype=torch.int64)
a[L([2, 0]), 1:3] = L([[1, 2], [3, 4]])
rec("put/tensor_slice", a)
big = torch.zeros(10)
rec("put/acc_many", big.index_put_((torch.arange(100000) % 10,), torch.ones(100000), accumulate=True))
rec("put/acc_int", torch.zeros(4, dtype=torch.int64).index_put_((L([3, 3, 0]),), L([5, 6, 7]),
                                                               accumulate=True))

# Random index expressions (Note: "fuzz" entries hold a spec the C++ test rebuilds). Entry kinds:
# ["int", v], ["slice", start, stop, step] (None as null), ["none"], ["ellipsis"], ["bool", b],
# ["tensor", name] (a stored int64 or bool tensor). "get" is x[spec]; "set" is x[spec] = values
# (no repeated positions, so the result is defined); "acc" is aten::index_put_ with accumulate.
import random  # noqa: E402

random.seed(1234)
torch.manual_seed(1234)  # the masks and accumulate indices below
fuzz = []
fx = torch.arange(120).reshape(3, 4, 5, 2)


def rand_spec():
    spec, args, dim, used_ellipsis, tensors = [], [], 0, False, 0
    for _ in range(random.randint(1, 5)):
        left = fx.dim() - dim
        kind = random.choice(["int", "slice", "none", "ellipsis", "bool", "tensor", "tensor", "mask"])
        if kind == "int" and left > 0:
            n = fx.shape[dim]
            v = random.randint(-n, n - 1)
            spec.append(["int", v]); args.append(v); dim += 1
        elif kind == "slice" and left > 0:
            b = random.choice([None, -3, 0, 1, 2]); e = random.choice([None, -1, 2, 4, 9])
            st = random.choice([None, 1, 2, 3])
            spec.append(["slice", b, e, st]); args.append(slice(b, e, st)); dim += 1
        elif kind == "none":
            spec.append(["none"]); args.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            spec.append(["ellipsis"]); args.append(Ellipsis)
            dim = fx.dim()  # conservatively: nothing after may consume dims... keep it simple
        elif kind == "bool":
            b = random.random() < 0.7
            spec.append(["bool", b]); args.append(b)
        elif kind == "tensor" and left > 0:
            n = fx.shape[dim]
            k = random.randint(0, n)
            pos = random.sample(range(n), k)  # distinct positions, some written negatively
            vals = [p - n if random.random() < 0.3 else p for p in pos]
            shape = random.choice([(k,), (k, 1)]) if k else (0,)
            t = torch.tensor(vals, dtype=torch.int64).reshape(shape)
            name = "fuzz/t%d" % len(fuzz) + "_%d" % tensors; tensors += 1
            rec(name, t)
            spec.append(["tensor", name]); args.append(t); dim += 1
        elif kind == "mask" and left > 0:
            k = random.randint(1, min(2, left))
            m = torch.rand(fx.shape[dim:dim + k]) < 0.5
            name = "fuzz/t%d" % len(fuzz) + "_%d" % tensors; tensors += 1
            rec(name, m)
            spec.append(["tensor", name]); args.append(m); dim += k
    return spec, tuple(args)


while len(fuzz) < 80:
    spec, args = rand_spec()
    try:
        got = fx[args]
    except (IndexError, RuntimeError):
        for e in spec:  # drop the tensors of a rejected spec
            if e[0] == "tensor":
                del out[e[1]]
        continue
    name = "fuzz/get%d" % len(fuzz)
    rec(name, got)
    y = torch.zeros_like(fx)
    y[args] = torch.arange(1, got.numel() + 1).reshape(got.shape)
    rec("fuzz/set%d" % len(fuzz), y)
    fuzz.append({"spec": spec, "get": name, "set": "fuzz/set%d" % len(fuzz)})

# accumulate: every entry ':' (null) or an int64 tensor with repeats
acc = []
for i in range(30):
    spec, args = [], []
    for d in range(fx.dim()):
        if random.random() < 0.5 or d == fx.dim() - 1 and not any(a is not None for a in args):
            n = fx.shape[d]
            shape = random.choice([(4,), (2, 1), (1, 3), (3,)])
            t = torch.randint(-n, n, shape)
            name = "acc/t%d_%d" % (i, d)
            rec(name, t)
            spec.append(["tensor", name]); args.append(t)
        else:
            spec.append(["slice", None, None, None]); args.append(None)
    try:
        shape = torch.zeros_like(fx)[tuple(slice(None) if a is None else a for a in args)].shape
    except (IndexError, RuntimeError):
        for e in spec:
            if e[0] == "tensor":
                del out[e[1]]
        continue
    vals = torch.arange(1, 1 + int(torch.tensor(shape).prod())).reshape(shape)
    y = torch.ops.aten.index_put_(torch.zeros_like(fx), args, vals, True)
    rec("acc/result%d" % i, y)
    acc.append({"spec": spec, "result": "acc/result%d" % i})
out["fuzz"] = fuzz
out["fuzz_acc"] = acc

# ── gather / scatter ─────────────────────────────────────────────────────────────────────────
src = torch.arange(20).reshape(4, 5)
idx = L([[0, 1, 2, 3], [3, 2, 1, 0], [0, 0, 0, 0]])
rec("gather/ref", torch.gather(src, 1, idx))
rec("gather/dim0", torch.gather(src, 0, L([[0, 1, 2, 3, 0], [3, 2, 1, 0, 1]])))
rec("gather/noncontig", torch.gather(src.t(), 1, L([[3, 0], [1, 1]])))
rec("gather/negdim", torch.gather(src.float(), -1, L([[4], [0], [2], [1]])))
rec("gather/empty", torch.gather(src, 1, torch.zeros(4, 0, dtype=torch.int64)))
sidx = L([[0, 1, 2, 3], [4, 3, 2, 1], [1, 3, 0, 2]])
rec("scatter/src", torch.zeros(3, 5).scatter(1, sidx, torch.arange(1.0, 13).reshape(3, 4)))
rec("scatter/value", torch.zeros(3, 5).scatter(1, L([[0], [2], [4]]), 9.5))
rec("scatter/dim0", torch.zeros(3, 4, dtype=torch.int64).scatter(0, L([[2, 0, 1, 2]]), L([[5, 6, 7, 8]])))
didx = L([[0, 0, 1], [4, 4, 4], [2, 3, 2]])
rec("scatter_add/dup", torch.ones(3, 5).scatter_add(1, didx, torch.arange(1.0, 10).reshape(3, 3)))
rec("scatter_add/dim0", torch.zeros(2, 3).scatter_add(0, L([[1, 1, 0], [1, 0, 0], [1, 1, 1]]),
                                                     torch.arange(1.0, 10).reshape(3, 3)))
rec("scatter_add/long", torch.zeros(4).scatter_add(0, torch.arange(50000) % 4, torch.ones(50000)))
self_r = T([[1.0, 2, 3, 4, 5], [-1, -2, -3, -4, -5], [10, 20, 30, 40, 50]])
ridx = L([[0, 0, 1, 1, 4], [2, 2, 2, 0, 0], [4, 3, 4, 3, 4]])
rsrc = T([[5.0, 1, 2, 8, 3], [1, 7, 2, 4, 6], [0.5, -1, 2, 9, -3]])
for red in ["sum", "prod", "mean", "amax", "amin"]:
    for inc in [True, False]:
        rec("scatter_reduce/%s_%d" % (red, inc), self_r.scatter_reduce(1, ridx, rsrc, red, include_self=inc))
rec("scatter_reduce/mean_int", L([[1, 2, 3, 4]]).scatter_reduce(1, L([[0, 0, 3, 3]]), L([[4, 5, 8, 7]]), "mean"))
rec("scatter_reduce/amax_nan", T([0.0, 0, 0]).scatter_reduce(0, L([0, 0, 1]), T([nan, 1.0, 2.0]), "amax"))

rec("index_select/rows", src.index_select(0, L([3, 0, 3])))
rec("index_select/cols", src.index_select(1, L([4, 1])))
rec("index_select/noncontig", src.t().index_select(1, L([2, 0])))
rec("index_select/empty", src.index_select(0, L([])))
rec("index_add/rows", torch.zeros(5, 3).index_add_(0, L([0, 4, 2, 0]), torch.arange(12.0).reshape(4, 3), alpha=2))
rec("index_add/cols", torch.ones(2, 4, dtype=torch.int64).index_add_(1, L([3, 3, 0]), L([[1, 2, 3], [4, 5, 6]])))
rec("index_copy/rows", torch.zeros(5, 3).index_copy_(0, L([4, 0, 2]), torch.arange(9.0).reshape(3, 3)))
rec("index_fill/cols", torch.arange(12).reshape(3, 4).index_fill_(1, L([0, -1]), -5))
rec("take/ref", torch.take(src, L([[0, -1], [7, 19]])))
tad = T([[10, 30, 20], [60, 40, 50]])
rec("take_along_dim/dim1", torch.take_along_dim(tad, L([[0], [2]]), dim=1))
rec("take_along_dim/flat", torch.take_along_dim(tad, L([5, 0, 3])))
rec("take_along_dim/bcast", torch.take_along_dim(tad, L([[2, 1]]), dim=1))
rec("take_along_dim/argsort", torch.take_along_dim(tad, tad.argsort(dim=0), dim=0))
rec("masked_select/ref", src.masked_select(src > 7))
rec("masked_select/bcast", src.masked_select(T([True, False, False, True, True])))
rec("masked_select/noncontig", src.t().masked_select(src.t() % 2 == 1))
rec("masked_scatter/ref", torch.zeros(3, 4).masked_scatter_(torch.arange(12).reshape(3, 4) % 3 == 1,
                                                            torch.arange(1.0, 13)))
rec("masked_scatter/bcast", torch.zeros(2, 3).masked_scatter(T([True, False, True]), torch.arange(1.0, 7)))
rec("nonzero/2d", torch.nonzero(T([[0, 1, 0], [2, 0, 3]])))
rec("nonzero/3d", torch.nonzero(torch.arange(24).reshape(2, 3, 4) % 5 == 0))
rec("nonzero/nan", torch.nonzero(T([0.0, nan, -0.0, 1.0])))
rec("nonzero/scalar", torch.nonzero(T(5)))
rec("nonzero/empty", torch.nonzero(torch.zeros(2, 3)))
rec("argwhere/ref", torch.argwhere(T([[1, 0], [0, 1]])))

# ── rearranging ──────────────────────────────────────────────────────────────────────────────
c = torch.arange(24).reshape(2, 3, 4)
rec("flip/02", c.flip([0, 2]))
rec("flip/last", c.flip([-1]))
rec("flip/noncontig", c.transpose(0, 2).flip([1]))
rec("fliplr", torch.fliplr(src))
rec("flipud", torch.flipud(src))
r = torch.arange(10).reshape(2, 5)
rec("roll/flat", r.roll(2))
rec("roll/dim1", r.roll(1, 1))
rec("roll/two", r.roll((1, -2), (0, 1)))
rec("roll/big", r.roll(7, 1))
rec("roll/noncontig", r.t().roll(-1, 0))
m = torch.arange(1, 13).reshape(3, 4)
for k in [0, 1, -1, 5, -5]:
    rec("tril/%d" % k, m.tril(k))
    rec("triu/%d" % k, m.triu(k))
rec("tril/batched", torch.arange(18.0).reshape(2, 3, 3).tril())
rec("triu/noncontig", m.t().triu())
for k in [0, 1, -2]:
    rec("diag/1d_%d" % k, torch.diag(T([1, 2, 3]), k))
for k in [0, 1, -1, 3]:
    rec("diag/2d_%d" % k, torch.diag(m, k))
rec("diag_embed/default", torch.diag_embed(torch.arange(6).reshape(2, 3)))
rec("diag_embed/offset", torch.diag_embed(torch.arange(6.0).reshape(2, 3), offset=1))
rec("diag_embed/dims", torch.diag_embed(torch.arange(6).reshape(2, 3), offset=-1, dim1=0, dim2=2))
rec("trace/int", torch.trace(m))
rec("trace/float", torch.trace(torch.arange(12.0).reshape(4, 3) / 3))
rec("trace/int8", torch.trace(T([[100, 1], [2, 100]], dtype=torch.int8)))
rec("repeat_interleave/int", T([1, 2, 3]).repeat_interleave(2))
rec("repeat_interleave/flat", T([[1, 2], [3, 4]]).repeat_interleave(2))
rec("repeat_interleave/tensor", T([[1, 2], [3, 4]]).repeat_interleave(L([1, 2]), dim=0))
rec("repeat_interleave/dim1", T([[1, 2], [3, 4]]).repeat_interleave(3, dim=1))
rec("repeat_interleave/repeats", torch.repeat_interleave(L([2, 0, 1])))
ga, gb, gc = T([1, 2, 3]), T([4, 5]), T([6, 7, 8, 9])
for ix in ["ij", "xy"]:
    for i, g in enumerate(torch.meshgrid(ga, gb, gc, indexing=ix)):
        rec("meshgrid/%s_%d" % (ix, i), g)
rec("one_hot/default", torch.nn.functional.one_hot(L([0, 2, 1, 3])))
rec("one_hot/classes", torch.nn.functional.one_hot(L([[0, 2], [1, 1]]), 5))
ss = T([1, 3, 5, 7, 9])
sv = T([[3, 6, 9], [3, 6, 9]])
rec("searchsorted/left", torch.searchsorted(ss, sv))
rec("searchsorted/right", torch.searchsorted(ss, sv, right=True))
rec("searchsorted/side", torch.searchsorted(ss, sv, side="right"))
sb = T([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
rec("searchsorted/batched", torch.searchsorted(sb, sv))
rec("searchsorted/float_nan", torch.searchsorted(T([1.0, 2.0, nan]), T([0.5, 2.0, nan, 5.0])))
rec("searchsorted/scalar", torch.searchsorted(ss, 4))
rec("searchsorted/int32", torch.searchsorted(ss, sv, out_int32=True))
rec("searchsorted/mixed", torch.searchsorted(ss, T([2.5, 9.0, 10.5])))
rec("searchsorted/sorter", torch.searchsorted(T([5, 1, 9, 3, 7]), sv, sorter=L([1, 3, 0, 4, 2])))
rec("bucketize/left", torch.bucketize(sv, ss))
rec("bucketize/right", torch.bucketize(sv, ss, right=True))
uq = T([1, 3, 2, 3, 1, 5])
u, inv, cnt = torch.unique(uq, return_inverse=True, return_counts=True)
rec("unique/values", u)
rec("unique/inverse", inv)
rec("unique/counts", cnt)
u, inv = torch.unique(T([[2.0, 1.0], [2.0, -1.0]]), return_inverse=True)
rec("unique/2d_values", u)
rec("unique/2d_inverse", inv)
ud = T([[1, 2], [0, 5], [1, 2], [0, 4]])
u, inv, cnt = torch.unique(ud, dim=0, return_inverse=True, return_counts=True)
rec("unique/dim0_values", u)
rec("unique/dim0_inverse", inv)
rec("unique/dim0_counts", cnt)
rec("unique/dim1_values", torch.unique(ud.t(), dim=1))

# ── sorting and selection ────────────────────────────────────────────────────────────────────
torch.manual_seed(0)
rnd = torch.randn(3, 6)
rec("sort/rnd/in", rnd)
pair("sort/rnd_last", rnd.sort())
pair("sort/rnd_dim0", rnd.sort(0))
pair("sort/rnd_desc", rnd.sort(1, descending=True))
pair("sort/noncontig", rnd.t().sort(1))
ties = torch.arange(100) % 7
pair("sort/ties_asc", ties.sort(stable=True))
pair("sort/ties_desc", ties.sort(descending=True, stable=True))
pair("sort/ties_default", ties.sort())
pair("sort/ties_default_desc", ties.sort(descending=True))
many = (torch.arange(5000) * 37 % 13).float().reshape(50, 100)
pair("sort/many_default_dim0", many.sort(0))
pair("sort/many_default_desc", many.sort(1, descending=True))
rec("argsort/ties_default", torch.argsort(ties))
fn = T([3.0, nan, 1.0, nan, 2.0, -float("inf")])
pair("sort/nan_asc", fn.sort())
pair("sort/nan_desc", fn.sort(descending=True))
pair("sort/bool", T([True, False, True, False]).sort(stable=True))
pair("sort/int_desc", T([[3, 1, 2], [9, 9, 0]], dtype=torch.int32).sort(descending=True, stable=True))
rec("argsort/ref", rnd.argsort(dim=1))
tk = T([1.0, 3, 3, 2, 3, 1])
pair("topk/largest", tk.topk(3))
pair("topk/smallest", tk.topk(3, largest=False))
tk2 = (torch.arange(40) * 7 % 5).reshape(4, 10).float()
pair("topk/rows", tk2.topk(4))
pair("topk/rows_smallest", tk2.topk(4, largest=False))
pair("topk/unsorted", tk2.topk(6, sorted=False))
pair("topk/dim0", tk2.topk(2, dim=0))
tk3 = (torch.arange(200) * 37 % 11).float()
pair("topk/partial", tk3.topk(3))
pair("topk/partial_smallest", tk3.topk(2, largest=False))
pair("topk/nth", tk3.topk(50))
pair("topk/nan", T([1.0, nan, 3.0, 2.0]).topk(2))
pair("topk/int", (torch.arange(30) * 7 % 4).topk(5))
kv = T([[3.0, 1, 2, 1, 3, 2, 1], [5, 5, 5, 4, 4, 6, 0]])
for k in [1, 2, 4, 7]:
    pair("kthvalue/k%d" % k, torch.kthvalue(kv, k))
pair("kthvalue/dim0_keep", torch.kthvalue(kv[:, :3], 1, dim=0, keepdim=True))
kv2 = (torch.arange(60) * 13 % 9).reshape(2, 30).float()
pair("kthvalue/long", torch.kthvalue(kv2, 11))
pair("kthvalue/nan", torch.kthvalue(T([2.0, nan, 1.0, 3.0]), 4))
rec("median/odd", torch.median(T([3.0, 1.0, 2.0])))
rec("median/even", torch.median(T([4, 1, 3, 2])))
rec("median/nan", torch.median(T([1.0, nan, 3.0])))
rec("nanmedian/all", torch.nanmedian(T([1.0, nan, 3.0, 2.0])))
pair("median/dim", torch.median(kv, 1))
pair("median/dim0", torch.median(kv2.reshape(6, 10), 0, keepdim=True))
pair("median/dim_nan", torch.median(T([[1.0, nan, 2.0, nan], [4.0, 3.0, 2.0, 1.0]]), 1))
pair("nanmedian/dim", torch.nanmedian(T([[1.0, nan, 2.0, 5.0], [nan, nan, nan, nan]]), 1))
pair("mode/small", torch.mode(T([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]])))
md = (torch.arange(90) * 7 % 6).reshape(3, 30)
pair("mode/long", torch.mode(md))
pair("mode/dim0", torch.mode(md.t()[:12], 0))
pair("mode/float", torch.mode(T([0.5, 1.5, 0.5, 2.5, 1.5, 1.5])))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "indexing.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print("wrote %d entries to %s" % (len(out), path))
