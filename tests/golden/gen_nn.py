#!/usr/bin/python3
"""Writes tests/golden/nn.json: PyTorch 1.13's results for the normalisation layers, the other
layers (embedding, linear, attention, distances) and the losses of ember::nn::functional, read by
tests/ops/{norm,layers,loss}_test.cpp. Run with Debian's /usr/bin/python3.

The file is {"cases": [case, ...]}, one case per line. A case:
  family  "norm", "layers" or "loss": the test program that runs it
  op      the row name in the C++ table ("batch_norm", "cross_entropy", ...)
  name    what the case exercises
  inputs  {name: tensor spec}
  args    keyword options (JSON ints/floats/bools/strings/null keep Python's kinds)
  out     {name: tensor}: "out" is the result; batch_norm adds the running stats after the call,
          embedding with max_norm the weight; "grad_<input>" are PyTorch's gradients for the
          upstream gradient given as input "grad_out"
  error   instead of out: a substring of ember's message, with torch_error, PyTorch's message
A tensor spec is {"dtype", "base", "data", "view"}: a contiguous tensor of shape base holding
data (row-major), then the view ops applied in order: ["t"], ["transpose", d0, d1],
["slice", dim, start, stop, step]. A result tensor is {"dtype", "shape", "data"}. Floating
values are JSON numbers that round-trip (float32 as the shortest repr); non-finite values are
the strings "nan", "inf", "-inf".

Reference details: rms_norm (added in PyTorch 2.4) and scaled_dot_product_attention (2.0) are
written out here as PyTorch's math implementations do; everything else calls torch 1.13 itself.
"""
import json
import math
import os
import warnings

import torch
import torch.nn.functional as F

from golden_json import dtype_name, enc_tensor, enc_values, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
warnings.simplefilter("ignore")
torch.manual_seed(0)
f32, f64 = torch.float32, torch.float64
cases = []


class Spec:
    """A tensor built from a contiguous base plus view ops, on both sides."""

    def __init__(self, base, view=()):
        self.base = base.detach().clone()
        self.view = list(view)

    def tensor(self):
        t = self.base.clone()
        for op in self.view:
            if op[0] == "t":
                t = t.t()
            elif op[0] == "transpose":
                t = t.transpose(op[1], op[2])
            elif op[0] == "slice":
                t = t.narrow(op[1], op[2], op[3] - op[2])[(slice(None),) * op[1] +
                                                          (slice(None, None, op[4]),)]
            else:
                raise ValueError(op)
        return t

    def enc(self):
        return {"dtype": dtype_name(self.base.dtype), "base": list(self.base.shape),
                "data": enc_values(self.base), "view": self.view}


def randn(*shape, dtype=f32, scale=1.0, shift=0.0):
    return Spec(torch.randn(*shape, dtype=dtype) * scale + shift)


def spec(t):
    return t if isinstance(t, Spec) else Spec(t)


def add(family, op, name, inputs, args, fn, grads=()):
    """fn(**tensors, **args) -> tensor or dict of tensors. grads: input names to differentiate."""
    inputs = {k: spec(v) for k, v in inputs.items() if v is not None}
    case = {"family": family, "op": op, "name": name,
            "inputs": {k: v.enc() for k, v in inputs.items()}, "args": args}
    ts = {k: v.tensor() for k, v in inputs.items()}
    for g in grads:
        ts[g] = ts[g].detach().clone().requires_grad_(True) if ts[g].is_contiguous() else \
            ts[g].detach().requires_grad_(True)
    try:
        res = fn(**{k: v for k, v in ts.items() if k != "grad_out"}, **args)
    except Exception as e:  # noqa: BLE001
        raise RuntimeError(f"{op} {name}: {e}")
    out = res if isinstance(res, dict) else {"out": res}
    enc = {k: enc_tensor(v) for k, v in out.items()}
    if grads:
        go = ts["grad_out"]
        gs = torch.autograd.grad(out["out"], [ts[g] for g in grads], go)
        for g, v in zip(grads, gs):
            enc["grad_" + g] = enc_tensor(v)
    case["out"] = enc
    cases.append(case)


def add_error(family, op, name, inputs, args, fn, match):
    inputs = {k: spec(v) for k, v in inputs.items() if v is not None}
    ts = {k: v.tensor() for k, v in inputs.items()}
    try:
        fn(**ts, **args)
    except Exception as e:  # noqa: BLE001
        msg = str(e).split("\n")[0]
        assert match in msg, (op, name, match, msg)
        cases.append({"family": family, "op": op, "name": name,
                      "inputs": {k: v.enc() for k, v in inputs.items()}, "args": args,
                      "error": match, "torch_error": msg})
        return
    raise AssertionError(f"{op} {name}: no error")


# ── normalisation ───────────────────────────────────────────────────────
def bn(input, running_mean=None, running_var=None, weight=None, bias=None, **kw):
    y = F.batch_norm(input, running_mean, running_var, weight, bias, **kw)
    out = {"out": y}
    if running_mean is not None:
        out["running_mean"] = running_mean.clone()
        out["running_var"] = running_var.clone()
    return out


def rms_norm_ref(input, weight=None, normalized_shape=(), eps=None):
    # PyTorch 2.4's rms_norm: computed in the opmath type, eps defaulting to its epsilon.
    dims = tuple(range(-len(normalized_shape), 0))
    x = input.to(f64 if input.dtype == f64 else f32)
    e = torch.finfo(x.dtype).eps if eps is None else eps
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + e)
    if weight is not None:
        y = y * weight
    return y.to(input.dtype)


def norm_cases():
    shapes = [(4, 3), (4, 3, 5), (2, 3, 4, 5), (3, 4, 40), (16, 70)]
    for shape in shapes:
        C = shape[1]
        for training in (True, False):
            for affine in (True, False):
                rm, rv = torch.randn(C) * 0.1, torch.rand(C) + 0.5
                inputs = {"input": randn(*shape, scale=2.0, shift=0.5),
                          "running_mean": rm, "running_var": rv,
                          "weight": torch.randn(C) if affine else None,
                          "bias": torch.randn(C) if affine else None,
                          "grad_out": torch.randn(*shape)}
                grads = ["input"] + (["weight", "bias"] if affine else [])
                add("norm", "batch_norm", f"{shape} train={training} affine={affine}", inputs,
                    {"training": training, "momentum": 0.1, "eps": 1e-5}, bn, grads)
    add("norm", "batch_norm", "momentum 0.3 eps 1e-3",
        {"input": randn(5, 2, 3), "running_mean": torch.zeros(2), "running_var": torch.ones(2)},
        {"training": True, "momentum": 0.3, "eps": 1e-3}, bn)
    add("norm", "batch_norm", "cumulative factor 1/3",
        {"input": randn(5, 2, 3), "running_mean": torch.ones(2), "running_var": torch.ones(2)},
        {"training": True, "momentum": 1.0 / 3, "eps": 1e-5}, bn)
    add("norm", "batch_norm", "no running stats", {"input": randn(6, 3, 2)},
        {"training": True, "momentum": 0.1, "eps": 1e-5}, bn)
    add("norm", "batch_norm", "transposed input",
        {"input": Spec(torch.randn(5, 6, 4), [["transpose", 0, 2]]),
         "running_mean": torch.zeros(6), "running_var": torch.ones(6), "weight": torch.randn(6),
         "bias": torch.randn(6), "grad_out": torch.randn(4, 6, 5)},
        {"training": True, "momentum": 0.1, "eps": 1e-5}, bn, ["input", "weight", "bias"])
    add("norm", "batch_norm", "large mean", {"input": randn(8, 3, 50, shift=1000.0),
                                             "running_mean": torch.zeros(3),
                                             "running_var": torch.ones(3)},
        {"training": True, "momentum": 0.1, "eps": 1e-5}, bn)
    add("norm", "batch_norm", "float64", {"input": randn(4, 3, 5, dtype=f64),
                                          "running_mean": torch.zeros(3, dtype=f64),
                                          "running_var": torch.ones(3, dtype=f64),
                                          "weight": torch.randn(3, dtype=f64),
                                          "grad_out": torch.randn(4, 3, 5, dtype=f64)},
        {"training": True, "momentum": 0.1, "eps": 1e-5}, bn, ["input", "weight"])
    bn_err = {"training": True, "momentum": 0.1, "eps": 1e-5}
    add_error("norm", "batch_norm", "one value per channel",
              {"input": randn(1, 3), "running_mean": torch.zeros(3), "running_var": torch.ones(3)},
              bn_err, bn, "Expected more than 1 value per channel when training")
    add_error("norm", "batch_norm", "running_mean size",
              {"input": randn(4, 3), "running_mean": torch.zeros(4), "running_var": torch.ones(3)},
              bn_err, bn, "running_mean should contain 3 elements not 4")
    add_error("norm", "batch_norm", "weight size",
              {"input": randn(4, 3), "running_mean": torch.zeros(3), "running_var": torch.ones(3),
               "weight": torch.ones(4)}, bn_err, bn, "weight should contain 3 elements not 4")
    add_error("norm", "batch_norm", "eval without stats", {"input": randn(4, 3)},
              {"training": False, "momentum": 0.1, "eps": 1e-5}, bn,
              "running_mean must be defined in evaluation mode")

    def ln(input, weight=None, bias=None, normalized_shape=(), eps=1e-5):
        return F.layer_norm(input, normalized_shape, weight, bias, eps)

    for shape, ns in [((4, 8), [8]), ((2, 3, 4), [3, 4]), ((3, 5, 7), [7]), ((1, 2100), [2100]),
                      ((5, 33), [33]), ((6,), [6])]:
        for affine in ((True,) if shape[-1] > 2048 else (True, False)):
            inputs = {"input": randn(*shape, scale=3.0, shift=1.0),
                      "weight": torch.randn(*ns) if affine else None,
                      "bias": torch.randn(*ns) if affine else None, "grad_out": torch.randn(*shape)}
            add("norm", "layer_norm", f"{shape} {ns} affine={affine}", inputs,
                {"normalized_shape": ns, "eps": 1e-5}, ln,
                ["input"] + (["weight", "bias"] if affine else []))
    add("norm", "layer_norm", "weight only", {"input": randn(3, 6), "weight": torch.randn(6),
                                               "grad_out": torch.randn(3, 6)},
        {"normalized_shape": [6], "eps": 1e-3}, ln, ["input", "weight"])
    add("norm", "layer_norm", "large mean", {"input": randn(4, 100, shift=1e4)},
        {"normalized_shape": [100], "eps": 1e-5}, ln)
    add("norm", "layer_norm", "transposed", {"input": Spec(torch.randn(6, 4), [["t"]]),
                                              "weight": torch.randn(6), "bias": torch.randn(6),
                                              "grad_out": torch.randn(4, 6)},
        {"normalized_shape": [6], "eps": 1e-5}, ln, ["input", "weight", "bias"])
    add("norm", "layer_norm", "float64", {"input": randn(3, 5, dtype=f64),
                                           "weight": torch.randn(5, dtype=f64)},
        {"normalized_shape": [5], "eps": 1e-5}, ln)
    add_error("norm", "layer_norm", "shape", {"input": randn(4, 3)},
              {"normalized_shape": [4], "eps": 1e-5}, ln,
              "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size")
    add_error("norm", "layer_norm", "weight shape", {"input": randn(4, 3), "weight": torch.ones(4)},
              {"normalized_shape": [3], "eps": 1e-5}, ln,
              "Expected weight to be of same shape as normalized_shape")

    def gn(input, weight=None, bias=None, num_groups=1, eps=1e-5):
        return F.group_norm(input, num_groups, weight, bias, eps)

    for shape, g in [((2, 6, 4), 3), ((2, 6, 5, 5), 2), ((3, 4), 1), ((2, 6, 3), 6),
                     ((2, 8, 40), 4)]:
        for affine in (True, False):
            C = shape[1]
            inputs = {"input": randn(*shape, scale=2.0, shift=-1.0),
                      "weight": torch.randn(C) if affine else None,
                      "bias": torch.randn(C) if affine else None, "grad_out": torch.randn(*shape)}
            add("norm", "group_norm", f"{shape} G={g} affine={affine}", inputs,
                {"num_groups": g, "eps": 1e-5}, gn,
                ["input"] + (["weight", "bias"] if affine else []))
    add("norm", "group_norm", "transposed", {"input": Spec(torch.randn(5, 4, 2), [["transpose", 0, 2]]),
                                              "weight": torch.randn(4)},
        {"num_groups": 2, "eps": 1e-5}, gn)
    add_error("norm", "group_norm", "divisible", {"input": randn(2, 6, 4)},
              {"num_groups": 4, "eps": 1e-5}, gn,
              "Expected number of channels in input to be divisible by num_groups")
    add_error("norm", "group_norm", "weight", {"input": randn(2, 6, 4), "weight": torch.ones(4)},
              {"num_groups": 3, "eps": 1e-5}, gn,
              "Expected weight to be a vector of size equal to the number of channels in input")

    for shape, ns, eps in [((4, 8), [8], None), ((2, 3, 4), [3, 4], None), ((3, 5), [5], 1e-6),
                           ((2, 50), [50], 0.1)]:
        for affine in (True, False):
            inputs = {"input": randn(*shape), "weight": torch.randn(*ns) if affine else None,
                      "grad_out": torch.randn(*shape)}
            add("norm", "rms_norm", f"{shape} eps={eps} affine={affine}", inputs,
                {"normalized_shape": ns, "eps": eps}, rms_norm_ref,
                ["input"] + (["weight"] if affine else []))
    add("norm", "rms_norm", "float64", {"input": randn(3, 4, dtype=f64)},
        {"normalized_shape": [4], "eps": None}, rms_norm_ref)


# ── layers ──────────────────────────────────────────────────────────────
def sdpa_ref(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    # PyTorch 2.x's math path (the reference implementation in its documentation).
    L, S = query.size(-2), key.size(-2)
    sc = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    bias = torch.zeros(L, S, dtype=query.dtype)
    if is_causal:
        bias.masked_fill_(torch.ones(L, S, dtype=torch.bool).tril(0).logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            bias = bias.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            bias = attn_mask + bias
    w = torch.softmax(query @ key.transpose(-2, -1) * sc + bias, dim=-1)
    return w @ value


def layer_cases():
    def emb(input, weight, **kw):
        y = F.embedding(input, weight, **kw)
        return {"out": y, "weight": weight.detach().clone()} if kw.get("max_norm") else y

    w = torch.randn(10, 4)
    add("layers", "embedding", "1-D", {"input": torch.tensor([1, 3, 3, 9, 0]), "weight": w}, {},
        emb)
    add("layers", "embedding", "2-D int32", {"input": torch.tensor([[1, 2], [4, 5]],
                                                                    dtype=torch.int32),
                                             "weight": w}, {}, emb)
    add("layers", "embedding", "padding_idx", {"input": torch.tensor([[0, 2, 0], [5, 1, 0]]),
                                               "weight": w}, {"padding_idx": 0}, emb)
    add("layers", "embedding", "max_norm", {"input": torch.tensor([1, 3, 3, 7]),
                                            "weight": torch.randn(10, 4) * 3},
        {"max_norm": 1.5}, emb)
    add("layers", "embedding", "max_norm p=1", {"input": torch.tensor([[2, 4], [2, 8]]),
                                                "weight": torch.randn(10, 4) * 3},
        {"max_norm": 2.0, "norm_type": 1.0}, emb)
    add("layers", "embedding", "transposed weight",
        {"input": torch.tensor([0, 3]), "weight": Spec(torch.randn(4, 6), [["t"]])}, {}, emb)
    add_error("layers", "embedding", "out of range", {"input": torch.tensor([0, 10]), "weight": w},
              {}, emb, "index out of range in self")
    add_error("layers", "embedding", "negative", {"input": torch.tensor([-1]), "weight": w}, {},
              emb, "index out of range in self")
    add_error("layers", "embedding", "float indices", {"input": torch.tensor([0.0]), "weight": w},
              {}, emb, "Expected tensor for argument #1 'indices' to have one of the following "
                       "scalar types: Long, Int")
    add_error("layers", "embedding", "padding range", {"input": torch.tensor([0]), "weight": w},
              {"padding_idx": 10}, emb, "Padding_idx must be within num_embeddings")
    add_error("layers", "embedding", "3-D weight", {"input": torch.tensor([0]),
                                                    "weight": torch.randn(2, 2, 2)}, {}, emb,
              "'weight' must be 2-D")

    def lin(input, weight, bias=None):
        return F.linear(input, weight, bias)

    add("layers", "linear", "2-D", {"input": randn(3, 4), "weight": randn(5, 4),
                                    "bias": torch.randn(5)}, {}, lin)
    add("layers", "linear", "3-D no bias", {"input": randn(2, 3, 4), "weight": randn(5, 4)}, {},
        lin)

    for name, q, k, v, args in [
            ("plain", (2, 5, 8), (2, 7, 8), (2, 7, 3), {}),
            ("4-D", (2, 3, 4, 8), (2, 3, 6, 8), (2, 3, 6, 8), {}),
            ("causal square", (2, 6, 4), (2, 6, 4), (2, 6, 4), {"is_causal": True}),
            ("causal L<S", (1, 3, 4), (1, 5, 4), (1, 5, 2), {"is_causal": True}),
            ("scale", (2, 4, 8), (2, 4, 8), (2, 4, 8), {"scale": 0.5}),
            ("large E", (1, 9, 64), (1, 33, 64), (1, 33, 16), {})]:
        add("layers", "sdpa", name, {"query": randn(*q), "key": randn(*k), "value": randn(*v)},
            args, sdpa_ref)
    add("layers", "sdpa", "bool mask", {"query": randn(2, 4, 8), "key": randn(2, 5, 8),
                                        "value": randn(2, 5, 8),
                                        "attn_mask": torch.rand(4, 5) > 0.3}, {}, sdpa_ref)
    mask = torch.rand(2, 1, 4, 5) > 0.4
    mask[..., 0] = True  # no fully masked row
    add("layers", "sdpa", "bool mask broadcast", {"query": randn(2, 3, 4, 8),
                                                  "key": randn(2, 3, 5, 8),
                                                  "value": randn(2, 3, 5, 8),
                                                  "attn_mask": mask}, {}, sdpa_ref)
    add("layers", "sdpa", "float mask", {"query": randn(2, 4, 8), "key": randn(2, 5, 8),
                                         "value": randn(2, 5, 6),
                                         "attn_mask": torch.randn(4, 5)}, {}, sdpa_ref)
    add("layers", "sdpa", "transposed q", {"query": Spec(torch.randn(2, 8, 4), [["transpose", 1, 2]]),
                                           "key": randn(2, 5, 8), "value": randn(2, 5, 8)},
        {"is_causal": False}, sdpa_ref)

    def cos(x1, x2, **kw):
        return F.cosine_similarity(x1, x2, **kw)

    add("layers", "cosine_similarity", "dim 1", {"x1": randn(4, 5), "x2": randn(4, 5)}, {}, cos)
    add("layers", "cosine_similarity", "dim -1 broadcast", {"x1": randn(3, 1, 6),
                                                            "x2": randn(4, 6)}, {"dim": -1}, cos)
    add("layers", "cosine_similarity", "dim 0", {"x1": randn(5, 3), "x2": randn(5, 3)},
        {"dim": 0}, cos)
    add("layers", "cosine_similarity", "tiny norms", {"x1": torch.tensor([[1e-9, 0.0], [3.0, 4.0]]),
                                                      "x2": torch.tensor([[1e-9, 0.0], [1e-9, 1e-9]])},
        {"dim": 1, "eps": 1e-8}, cos)
    add("layers", "cosine_similarity", "transposed", {"x1": Spec(torch.randn(6, 3), [["t"]]),
                                                      "x2": randn(3, 6)}, {}, cos)
    add_error("layers", "cosine_similarity", "integers", {"x1": torch.tensor([[1, 2]]),
                                                          "x2": torch.tensor([[1, 2]])}, {}, cos,
              "expected common dtype to be floating point, yet common dtype is")

    def pd(x1, x2, **kw):
        return F.pairwise_distance(x1, x2, **kw)

    for args in [{}, {"p": 1.0}, {"p": 3.0, "keepdim": True}, {"p": 2.0, "eps": 0.1}]:
        add("layers", "pairwise_distance", json.dumps(args), {"x1": randn(4, 5), "x2": randn(4, 5)},
            args, pd)
    add("layers", "pairwise_distance", "1-D", {"x1": randn(5), "x2": randn(5)}, {}, pd)
    add("layers", "pairwise_distance", "broadcast", {"x1": randn(3, 4), "x2": randn(4)}, {}, pd)


# ── losses ──────────────────────────────────────────────────────────────
def loss_cases():
    def ce(input, target, **kw):
        return F.cross_entropy(input, target, **kw)

    def nll(input, target, **kw):
        return F.nll_loss(input, target, **kw)

    def targets(shape, C, ignore=()):
        t = torch.randint(0, C, shape)
        flat = t.view(-1)
        for i in ignore:
            flat[i] = -100
        return t

    for reduction in ("mean", "sum", "none"):
        for ls in (0.0, 0.1):
            for wname in ("", "weight"):
                base = {"reduction": reduction, "label_smoothing": ls}
                w = torch.rand(5) + 0.5 if wname else None
                tag = f"{reduction} ls={ls} {wname}"
                go = torch.randn(6) if reduction == "none" else torch.tensor(1.7)
                add("loss", "cross_entropy", "2-D " + tag,
                    {"input": randn(6, 5, scale=2.0), "target": targets((6,), 5, [2]),
                     "weight": w, "grad_out": go}, base, ce, ["input"])
                go = torch.randn(2, 3, 4) if reduction == "none" else torch.tensor(0.6)
                add("loss", "cross_entropy", "4-D " + tag,
                    {"input": randn(2, 5, 3, 4), "target": targets((2, 3, 4), 5, [0, 7]),
                     "weight": w, "grad_out": go}, base, ce, ["input"])
                go = torch.randn(3, 7) if reduction == "none" else torch.tensor(1.0)
                add("loss", "cross_entropy", "3-D " + tag,
                    {"input": randn(3, 5, 7), "target": targets((3, 7), 5, [4]),
                     "weight": w, "grad_out": go}, base, ce, ["input"])
                go = torch.randn(4) if reduction == "none" else torch.tensor(1.0)
                add("loss", "cross_entropy", "probabilities " + tag,
                    {"input": randn(4, 6), "target": torch.softmax(torch.randn(4, 6), 1),
                     "weight": torch.rand(6) + 0.5 if wname else None, "grad_out": go},
                    base, ce, ["input"])
    add("loss", "cross_entropy", "unbatched", {"input": randn(7), "target": torch.tensor(3),
                                               "grad_out": torch.tensor(1.0)}, {}, ce, ["input"])
    add("loss", "cross_entropy", "unbatched probabilities",
        {"input": randn(7), "target": torch.softmax(torch.randn(7), 0)}, {"label_smoothing": 0.2},
        ce)
    add("loss", "cross_entropy", "5-D", {"input": randn(2, 3, 2, 2, 3),
                                         "target": torch.randint(0, 3, (2, 2, 2, 3))}, {}, ce)
    add("loss", "cross_entropy", "large C", {"input": randn(4, 500, scale=3.0),
                                             "target": torch.randint(0, 500, (4,)),
                                             "grad_out": torch.tensor(1.0)},
        {"label_smoothing": 0.05}, ce, ["input"])
    add("loss", "cross_entropy", "large logits", {"input": randn(4, 17, scale=1000.0),
                                                  "target": torch.randint(0, 17, (4,))}, {}, ce)
    add("loss", "cross_entropy", "ignore_index in range",
        {"input": randn(6, 4), "target": torch.tensor([0, 1, 2, 3, 1, 1]),
         "weight": torch.rand(4) + 0.5, "grad_out": torch.tensor(1.0)},
        {"ignore_index": 1, "label_smoothing": 0.2}, ce, ["input"])
    add("loss", "cross_entropy", "all ignored", {"input": randn(3, 4),
                                                 "target": torch.tensor([-100, -100, -100])}, {},
        ce)
    add("loss", "cross_entropy", "transposed", {"input": Spec(torch.randn(5, 6), [["t"]]),
                                                "target": torch.randint(0, 5, (6,)),
                                                "grad_out": torch.tensor(1.0)}, {}, ce, ["input"])
    add("loss", "cross_entropy", "empty sum", {"input": torch.zeros(0, 5),
                                               "target": torch.zeros(0, dtype=torch.int64)},
        {"reduction": "sum"}, ce)
    add("loss", "cross_entropy", "uint8 target", {"input": randn(3, 4),
                                                  "target": torch.tensor([0, 3, 1],
                                                                         dtype=torch.uint8)},
        {}, ce)
    add("loss", "cross_entropy", "float64", {"input": randn(4, 5, dtype=f64),
                                             "target": torch.tensor([0, 4, 2, 1])},
        {"label_smoothing": 0.3}, ce)
    E = "loss"
    add_error(E, "cross_entropy", "target bound", {"input": randn(3, 5),
                                                   "target": torch.tensor([0, 1, 10])}, {}, ce,
              "Target 10 is out of bounds.")
    add_error(E, "cross_entropy", "negative target", {"input": randn(3, 5),
                                                      "target": torch.tensor([0, -1, 1])}, {}, ce,
              "Target -1 is out of bounds.")
    add_error(E, "cross_entropy", "batch size", {"input": randn(3, 5),
                                                 "target": torch.tensor([0, 1, 2, 3])}, {}, ce,
              "Expected input batch_size (3) to match target batch_size (4).")
    add_error(E, "cross_entropy", "int32 target", {"input": randn(3, 5),
                                                   "target": torch.tensor([0, 1, 2],
                                                                          dtype=torch.int32)},
              {}, ce, "expected scalar type Long but found Int")
    add_error(E, "cross_entropy", "prob target dtype", {"input": randn(3, 5),
                                                        "target": torch.zeros(3, 5,
                                                                              dtype=torch.int64)},
              {}, ce, "Expected floating point type for target with class probabilities, got Long")
    add_error(E, "cross_entropy", "prob ignore_index", {"input": randn(3, 5),
                                                        "target": torch.rand(3, 5)},
              {"ignore_index": 1}, ce, "ignore_index is not supported for floating point target")
    add_error(E, "cross_entropy", "weight size", {"input": randn(3, 5),
                                                  "target": torch.tensor([0, 1, 2]),
                                                  "weight": torch.ones(4)}, {}, ce,
              "weight tensor should be defined either for all 5 classes or no classes but got "
              "weight tensor of shape: [4]")
    add_error(E, "cross_entropy", "spatial target", {"input": randn(3, 5, 2),
                                                     "target": torch.zeros(3, 1,
                                                                           dtype=torch.int64)},
              {}, ce, "Expected target size [3, 2], got [3, 1]")
    add_error(E, "cross_entropy", "4-D target dims", {"input": randn(3, 5, 2, 2),
                                                      "target": torch.zeros(3, 2,
                                                                            dtype=torch.int64)},
              {}, ce, "only batches of spatial targets supported (3D tensors) but got targets "
                      "of dimension: 2")
    add_error(E, "cross_entropy", "label smoothing", {"input": randn(3, 5),
                                                      "target": torch.tensor([0, 1, 2])},
              {"label_smoothing": 1.1}, ce, "label_smoothing must be between 0.0 and 1.0. Got: 1.1")
    add_error(E, "cross_entropy", "reduction", {"input": randn(3, 5),
                                                "target": torch.tensor([0, 1, 2])},
              {"reduction": "foo"}, ce, "foo is not a valid value for reduction")
    add_error(E, "cross_entropy", "multi-target", {"input": randn(3, 5),
                                                   "target": torch.zeros(3, 1,
                                                                         dtype=torch.int64)},
              {}, ce, "0D or 1D target tensor expected, multi-target not supported")

    for reduction in ("mean", "sum", "none"):
        go = torch.randn(5) if reduction == "none" else torch.tensor(1.3)
        add(E, "nll_loss", f"2-D {reduction}",
            {"input": Spec(torch.log_softmax(torch.randn(5, 4), 1)),
             "target": torch.tensor([0, 3, -100, 1, 3]), "weight": torch.rand(4) + 0.5,
             "grad_out": go}, {"reduction": reduction}, nll, ["input"])
        add(E, "nll_loss", f"4-D {reduction}", {"input": randn(2, 3, 2, 2),
                                               "target": torch.randint(0, 3, (2, 2, 2))},
            {"reduction": reduction, "ignore_index": 2}, nll)
    add_error(E, "nll_loss", "0-d input", {"input": torch.tensor(1.0), "target": torch.tensor(0)},
              {}, nll, "Expected 1 or more dimensions (got 0)")
    add_error(E, "nll_loss", "target bound 4-D", {"input": randn(3, 5, 2, 2),
                                                  "target": torch.full((3, 2, 2), 7)}, {}, nll,
              "Target 7 is out of bounds.")

    def pointwise(fn):
        def f(input, target, **kw):
            return fn(input, target, **kw)
        return f

    for op, fn, extra in [("mse_loss", F.mse_loss, [{}]), ("l1_loss", F.l1_loss, [{}]),
                          ("smooth_l1_loss", F.smooth_l1_loss,
                           [{"beta": 1.0}, {"beta": 0.5}, {"beta": 0.0}, {"beta": 2.0}]),
                          ("huber_loss", F.huber_loss, [{"delta": 1.0}, {"delta": 0.3}])]:
        for kw in extra:
            for reduction in ("mean", "sum", "none"):
                add(E, op, f"{reduction} {json.dumps(kw)}",
                    {"input": randn(4, 5, scale=2.0), "target": randn(4, 5)},
                    {"reduction": reduction, **kw}, pointwise(fn))
        add(E, op, "broadcast", {"input": randn(3, 4), "target": randn(4)}, {}, pointwise(fn))
        add(E, op, "transposed", {"input": Spec(torch.randn(4, 3), [["t"]]),
                                  "target": randn(3, 4)}, {}, pointwise(fn))
    add(E, "mse_loss", "float64 target", {"input": randn(3), "target": randn(3, dtype=f64)}, {},
        pointwise(F.mse_loss))
    add_error(E, "smooth_l1_loss", "negative beta", {"input": randn(3), "target": randn(3)},
              {"beta": -1.0}, pointwise(F.smooth_l1_loss),
              "smooth_l1_loss does not support negative values for beta.")
    add_error(E, "huber_loss", "zero delta", {"input": randn(3), "target": randn(3)},
              {"delta": 0.0}, pointwise(F.huber_loss),
              "huber_loss does not support non-positive values for delta.")

    def bce(input, target, **kw):
        return F.binary_cross_entropy(input, target, **kw)

    probs = torch.rand(4, 5)
    probs[0, 0], probs[0, 1], probs[1, 0] = 0.0, 1.0, 1e-30
    for reduction in ("mean", "sum", "none"):
        add(E, "binary_cross_entropy", reduction, {"input": probs, "target": torch.rand(4, 5)},
            {"reduction": reduction}, bce)
    add(E, "binary_cross_entropy", "weight", {"input": torch.rand(4, 5),
                                              "target": torch.rand(4, 5),
                                              "weight": torch.rand(5)}, {}, bce)
    add_error(E, "binary_cross_entropy", "range", {"input": torch.tensor([0.5, 1.5]),
                                                   "target": torch.tensor([0.5, 1.0])}, {}, bce,
              "all elements of input should be between 0 and 1")
    add_error(E, "binary_cross_entropy", "size", {"input": torch.tensor([0.5, 0.5]),
                                                  "target": torch.tensor([[0.5, 1.0]])}, {}, bce,
              "that is different to the input size")

    def bcel(input, target, **kw):
        return F.binary_cross_entropy_with_logits(input, target, **kw)

    logits = torch.randn(4, 5) * 3
    logits[0, 0], logits[0, 1] = 100.0, -100.0
    for reduction in ("mean", "sum", "none"):
        add(E, "binary_cross_entropy_with_logits", reduction,
            {"input": logits, "target": torch.rand(4, 5)}, {"reduction": reduction}, bcel)
    add(E, "binary_cross_entropy_with_logits", "pos_weight weight",
        {"input": logits, "target": torch.rand(4, 5), "weight": torch.rand(4, 1),
         "pos_weight": torch.rand(5) * 3}, {"reduction": "none"}, bcel)
    add_error(E, "binary_cross_entropy_with_logits", "size", {"input": torch.tensor([0.5, 0.5]),
                                                              "target": torch.tensor([[0.5, 1.0]])},
              {}, bcel, "must be the same as input size")

    def kl(input, target, **kw):
        return F.kl_div(input, target, **kw)

    t = torch.softmax(torch.randn(3, 4), 1)
    t[0, 0] = 0.0
    for reduction in ("mean", "sum", "none", "batchmean"):
        for log_target in (False, True):
            add(E, "kl_div", f"{reduction} log_target={log_target}",
                {"input": Spec(torch.log_softmax(torch.randn(3, 4), 1)),
                 "target": t.log() if log_target else t},
                {"reduction": reduction, "log_target": log_target}, kl)

    def cel(input1, input2, target, **kw):
        return F.cosine_embedding_loss(input1, input2, target, **kw)

    for reduction in ("mean", "sum", "none"):
        add(E, "cosine_embedding_loss", reduction,
            {"input1": randn(5, 4), "input2": randn(5, 4),
             "target": torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0])},
            {"margin": 0.1, "reduction": reduction}, cel)
    add(E, "cosine_embedding_loss", "0-d target", {"input1": randn(4), "input2": randn(4),
                                                   "target": torch.tensor(-1.0)},
        {"margin": -0.5}, cel)
    add_error(E, "cosine_embedding_loss", "dims", {"input1": randn(3), "input2": randn(3, 4),
                                                   "target": torch.ones(3)}, {}, cel,
              "1D target tensor expects 2D input tensors, but found inputs with sizes")

    def mrl(input1, input2, target, **kw):
        return F.margin_ranking_loss(input1, input2, target, **kw)

    for reduction in ("mean", "sum", "none"):
        add(E, "margin_ranking_loss", reduction,
            {"input1": randn(6), "input2": randn(6),
             "target": torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])},
            {"margin": 0.2, "reduction": reduction}, mrl)
    add_error(E, "margin_ranking_loss", "dims", {"input1": randn(3), "input2": randn(3, 1),
                                                 "target": torch.ones(3)}, {}, mrl,
              "All input tensors should have same dimension but got sizes")

    def tml(anchor, positive, negative, **kw):
        return F.triplet_margin_loss(anchor, positive, negative, **kw)

    for kw in [{}, {"p": 1.0, "margin": 0.5}, {"swap": True, "reduction": "none"},
               {"eps": 1e-3, "reduction": "sum"}]:
        add(E, "triplet_margin_loss", json.dumps(kw),
            {"anchor": randn(5, 4), "positive": randn(5, 4), "negative": randn(5, 4)}, kw, tml)


norm_cases()
layer_cases()
loss_cases()

path = os.path.join(HERE, "nn.json")
write_cases(path, cases)
print(f"{len(cases)} cases, {os.path.getsize(path)} bytes -> {path}")
