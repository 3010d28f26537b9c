#!/usr/bin/python3
"""Writes tests/golden/nn_grad.json: PyTorch 1.13's gradients of the conv / pool / resize /
norm / attention / loss ops, read by tests/autograd/nn_grad_test.cpp. Run with Debian's
/usr/bin/python3.

The file is {"cases": [case, ...]}. A case:
  name     the row in the C++ table that runs the op (one row may serve several cases)
  inputs   {name: tensor}; float64 inputs require grad unless listed in "const"
  const    names of float64 inputs that are constants (running stats, class weights, ...)
  args     keyword options of the row
  grad_out the upstream gradient (shaped like the output)
  out      the output; grads {name: d(out . grad_out)/d(input)} for the inputs requiring grad
A tensor is {"dtype", "shape", "data"} (row-major; float64 values round-trip).
rms_norm (PyTorch 2.4) and scaled_dot_product_attention (2.0) are written out as PyTorch's math
implementations.
"""
import math
import os
import warnings

import torch
import torch.nn.functional as F

from golden_json import enc_tensor, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)
warnings.simplefilter("ignore")
f64 = torch.float64
cases = []


def r(*shape, lo=-2.0, hi=2.0):
    return torch.rand(tuple(shape), dtype=f64) * (hi - lo) + lo


def case(name, fn, inputs, const=(), args=None, label=None):
    ins = {k: (v.clone().requires_grad_(v.dtype == f64 and k not in const)) for k, v in inputs.items()}
    out = fn(ins, args or {})
    g = r(*out.shape)
    diff = [k for k, v in ins.items() if v.requires_grad]
    grads = torch.autograd.grad(out, [ins[k] for k in diff], g, allow_unused=True)
    cases.append({
        "name": name, "label": label or name,
        "inputs": {k: enc_tensor(v) for k, v in inputs.items()}, "const": list(const),
        "args": args or {}, "grad_out": enc_tensor(g), "out": enc_tensor(out),
        "grads": {k: enc_tensor(v) for k, v in zip(diff, grads) if v is not None},
    })


# ── convolution ───────────────────────────────────────────────────────────
case("conv2d", lambda t, a: F.conv2d(t["x"], t["w"], t["b"], stride=(2, 1), padding=(1, 2),
                                     dilation=(1, 2), groups=2),
     {"x": r(2, 4, 6, 7), "w": r(6, 2, 3, 2), "b": r(6)})
case("conv2d_same", lambda t, a: F.conv2d(t["x"], t["w"], padding="same"),
     {"x": r(1, 3, 5, 5), "w": r(2, 3, 2, 3)})
case("conv1d", lambda t, a: F.conv1d(t["x"], t["w"], t["b"], stride=2, padding=1, dilation=2),
     {"x": r(2, 3, 9), "w": r(4, 3, 3), "b": r(4)})
case("conv_transpose2d", lambda t, a: F.conv_transpose2d(
    t["x"], t["w"], t["b"], stride=2, padding=1, output_padding=1, groups=2),
     {"x": r(2, 4, 3, 3), "w": r(4, 3, 3, 2), "b": r(6)})
# ── pooling, interpolate, pad ─────────────────────────────────────────────
case("max_pool2d", lambda t, a: F.max_pool2d(t["x"], 3, stride=2, padding=1),
     {"x": r(2, 3, 6, 5)})
case("avg_pool2d", lambda t, a: F.avg_pool2d(t["x"], 3, stride=2, padding=1,
                                             count_include_pad=False, ceil_mode=True),
     {"x": r(2, 2, 6, 5)})
case("adaptive_avg_pool2d", lambda t, a: F.adaptive_avg_pool2d(t["x"], (3, 2)), {"x": r(2, 3, 7, 5)})
case("adaptive_max_pool2d", lambda t, a: F.adaptive_max_pool2d(t["x"], (3, 4)), {"x": r(2, 2, 7, 5)})
case("interpolate_bilinear", lambda t, a: F.interpolate(t["x"], size=(5, 7), mode="bilinear"),
     {"x": r(1, 2, 3, 4)})
case("interpolate_nearest", lambda t, a: F.interpolate(t["x"], scale_factor=(2.0, 1.5)),
     {"x": r(2, 2, 3, 4)})
case("pad_reflect", lambda t, a: F.pad(t["x"], (2, 1, 3, 1), mode="reflect"), {"x": r(1, 2, 4, 5)})
case("pad_replicate", lambda t, a: F.pad(t["x"], (2, 3, 1, 2), mode="replicate"),
     {"x": r(1, 2, 3, 3)})
# ── normalisation ─────────────────────────────────────────────────────────
case("batch_norm_train", lambda t, a: F.batch_norm(t["x"], None, None, t["w"], t["b"], training=True),
     {"x": r(4, 3, 2, 2), "w": r(3), "b": r(3)})
case("batch_norm_eval", lambda t, a: F.batch_norm(t["x"], t["rm"], t["rv"], t["w"], t["b"],
                                                  training=False, eps=1e-3),
     {"x": r(2, 3, 4), "w": r(3), "b": r(3), "rm": r(3), "rv": r(3, lo=0.5, hi=2)},
     const=("rm", "rv"))
case("layer_norm", lambda t, a: F.layer_norm(t["x"], (2, 4), t["w"], t["b"]),
     {"x": r(3, 2, 4), "w": r(2, 4), "b": r(2, 4)})
case("group_norm", lambda t, a: F.group_norm(t["x"], 2, t["w"], t["b"]),
     {"x": r(2, 4, 3), "w": r(4), "b": r(4)})


def rms(t, a):
    x = t["x"]
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * t["w"]


case("rms_norm", rms, {"x": r(3, 4), "w": r(4)})
# ── embedding, attention ──────────────────────────────────────────────────
case("embedding", lambda t, a: F.embedding(t["idx"], t["w"], padding_idx=4, scale_grad_by_freq=True),
     {"idx": torch.tensor([[2, 4, 2], [0, 2, 1]]), "w": r(5, 3)})


def sdpa(t, a):  # PyTorch 2.0's math path
    q, k, v = t["q"], t["k"], t["v"]
    attn = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if a.get("causal"):
        L, S = attn.shape[-2:]
        attn = attn.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(attn, -1) @ v


case("sdpa", sdpa, {"q": r(2, 3, 4), "k": r(2, 5, 4), "v": r(2, 5, 2)})
case("sdpa", sdpa, {"q": r(1, 4, 3), "k": r(1, 4, 3), "v": r(1, 4, 3)}, args={"causal": True},
     label="sdpa_causal")
# ── losses and distances ──────────────────────────────────────────────────
W = r(4, lo=0.5, hi=2)
case("cross_entropy", lambda t, a: F.cross_entropy(t["x"], t["y"], weight=t["wt"], ignore_index=3,
                                                   label_smoothing=0.2),
     {"x": r(3, 4, 2), "y": torch.tensor([[0, 3], [1, 1], [3, 2]]), "wt": W}, const=("wt",))
case("cross_entropy_none", lambda t, a: F.cross_entropy(t["x"], t["y"], reduction="none"),
     {"x": r(5, 3), "y": torch.tensor([1, 0, 2, 2, 1])})
case("cross_entropy_prob", lambda t, a: F.cross_entropy(t["x"], t["p"], label_smoothing=0.1),
     {"x": r(3, 4), "p": torch.softmax(r(3, 4), -1)})
case("nll_loss", lambda t, a: F.nll_loss(t["x"], t["y"], weight=t["wt"][:3]),
     {"x": r(4, 3), "y": torch.tensor([0, 2, 1, 2]), "wt": W}, const=("wt",))
case("mse_loss", lambda t, a: F.mse_loss(t["x"], t["y"]), {"x": r(3, 4), "y": r(3, 4)})
case("l1_loss", lambda t, a: F.l1_loss(t["x"], t["y"], reduction="sum"), {"x": r(3, 4), "y": r(3, 4)})
case("smooth_l1_loss", lambda t, a: F.smooth_l1_loss(t["x"], t["y"], beta=0.7),
     {"x": r(3, 4), "y": r(3, 4)})
case("huber_loss", lambda t, a: F.huber_loss(t["x"], t["y"], delta=0.8, reduction="sum"),
     {"x": r(3, 4), "y": r(3, 4)})
case("bce", lambda t, a: F.binary_cross_entropy(t["x"], t["y"], weight=t["wt"]),
     {"x": r(3, 4, lo=0.05, hi=0.95), "y": r(3, 4, lo=0, hi=1), "wt": W}, const=("wt",))
case("bce_with_logits", lambda t, a: F.binary_cross_entropy_with_logits(
    t["x"], t["y"], weight=t["wt"], pos_weight=t["pw"]),
     {"x": r(3, 4), "y": r(3, 4, lo=0, hi=1), "wt": W, "pw": r(4, lo=0.5, hi=3)}, const=("wt", "pw"))
case("kl_div", lambda t, a: F.kl_div(t["x"], t["y"], reduction="batchmean"),
     {"x": torch.log_softmax(r(3, 4), -1), "y": torch.softmax(r(3, 4), -1)})
case("cosine_similarity", lambda t, a: F.cosine_similarity(t["x"], t["y"], dim=1),
     {"x": r(3, 5), "y": r(3, 5)})
case("pairwise_distance", lambda t, a: F.pairwise_distance(t["x"], t["y"], p=3.0),
     {"x": r(3, 5), "y": r(3, 5)})
# Planes of 32 elements or more take the fused batch norm backward kernel (appended here so the
# cases above keep their random draws).
case("batch_norm_train", lambda t, a: F.batch_norm(t["x"], None, None, t["w"], t["b"], training=True),
     {"x": r(3, 2, 6, 6), "w": r(2), "b": r(2)}, label="batch_norm_train_planar")
case("batch_norm_eval", lambda t, a: F.batch_norm(t["x"], t["rm"], t["rv"], t["w"], t["b"],
                                                  training=False, eps=1e-3),
     {"x": r(2, 3, 40), "w": r(3), "b": r(3), "rm": r(3), "rv": r(3, lo=0.5, hi=2)},
     const=("rm", "rv"), label="batch_norm_eval_planar")


# Double backward: a gradient penalty (WGAN-GP style) through convolution and the fused
# cross_entropy, differentiated again with respect to everything.
def gradient_penalty(t, a):
    logits = F.conv2d(t["x"], t["w"], t["b"], stride=2, padding=1).flatten(1) @ t["v"]
    loss = F.cross_entropy(logits, t["y"], label_smoothing=0.1)
    (gx,) = torch.autograd.grad(loss, t["x"], create_graph=True)
    return (gx * gx).sum()


case("conv_cross_entropy_gradient_penalty", gradient_penalty,
     {"x": r(2, 3, 6, 6), "w": r(4, 3, 3, 3), "b": r(4), "v": r(36, 5),
      "y": torch.tensor([1, 4])})

write_cases(os.path.join(HERE, "nn_grad.json"), cases, separators=(", ", ": "))
print(len(cases), "cases")
