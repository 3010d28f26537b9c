#!/usr/bin/python3
"""Writes PyTorch 1.13's reference data for ember's autocast tests (run with Debian's
/usr/bin/python3, which has PyTorch 1.13): tests/golden/autocast.json.

  registrations.cpu / .cuda   the op names (aten name, '.overload' where not the default) that
                              PyTorch 1.13 registers for the AutocastCPU / AutocastCUDA dispatch
                              keys, read from the installed library. src/amp/policy_table.cpp must
                              list exactly these (tests/amp/policy_table_test.cpp).
  cpu_bf16                    case name -> output dtype of the op under
                              torch.autocast("cpu", dtype=torch.bfloat16). The C++ test builds the
                              same call from the case name; both sides list the same cases.
  nesting                     dtypes for nested / disabled regions.
  cache                       aten::_to_copy counts for two F.linear(x, w) inside one region.
  grads                       dtypes of x.grad / w.grad after a backward through an autocast linear.

Inputs are float32 unless the case name says bf16 (the input is float32 cast to bfloat16 before
the region) or f64.
"""
import json
import os

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
BF = torch.bfloat16


def registrations(key):
    names = torch._C._dispatch_get_registrations_for_dispatch_key(key)
    return sorted(n.replace("aten::", "") for n in names)


def cases():
    g = torch.Generator().manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, generator=g)

    A, B = r(3, 4), r(4, 5)
    bA, bB = r(2, 3, 4), r(2, 4, 5)
    x3, w3 = r(1, 2, 8), r(2, 2, 3)
    x4, w4 = r(1, 2, 5, 5), r(2, 2, 3, 3)
    t = torch.tensor([0, 1, 2])
    p = torch.rand(3, generator=g)
    return {
        # lower precision
        "matmul": lambda: A @ B,
        "mm": lambda: A.mm(B),
        "bmm": lambda: bA.bmm(bB),
        "linear": lambda: F.linear(A, B.t()),
        "addmm": lambda: torch.addmm(r(3, 5), A, B),
        "baddbmm": lambda: torch.baddbmm(r(2, 3, 5), bA, bB),
        "addbmm": lambda: torch.addbmm(r(3, 5), bA, bB),
        "conv1d": lambda: F.conv1d(x3, w3),
        "conv2d": lambda: F.conv2d(x4, w4),
        "matmul_bf16_f32": lambda: A.to(BF) @ B,
        "matmul_f64": lambda: A.double() @ B.double(),
        "mv": lambda: A.mv(r(4)),
        "dot": lambda: r(4).dot(r(4)),
        # float32
        "mse_loss": lambda: F.mse_loss(A, A),
        "mse_loss_bf16": lambda: F.mse_loss(A.to(BF), A.to(BF)),
        "cross_entropy": lambda: F.cross_entropy(A, t),
        "cross_entropy_bf16": lambda: F.cross_entropy(A.to(BF), t),
        "nll_loss_bf16": lambda: F.nll_loss(A.to(BF), t),
        "l1_loss_bf16": lambda: F.l1_loss(A.to(BF), A.to(BF)),
        "smooth_l1_loss_bf16": lambda: F.smooth_l1_loss(A.to(BF), A.to(BF)),
        "huber_loss_bf16": lambda: F.huber_loss(A.to(BF), A.to(BF)),
        "kl_div_bf16": lambda: F.kl_div(A.to(BF), A.to(BF), reduction="batchmean"),
        "binary_cross_entropy_bf16": lambda: F.binary_cross_entropy(p.to(BF), p.to(BF)),
        "binary_cross_entropy_with_logits_bf16":
            lambda: F.binary_cross_entropy_with_logits(p.to(BF), p.to(BF)),
        "conv_transpose1d_bf16": lambda: F.conv_transpose1d(x3.to(BF), w3.to(BF)),
        "conv_transpose2d_bf16": lambda: F.conv_transpose2d(x4.to(BF), w4.to(BF)),
        "prod_bf16": lambda: A.to(BF).prod(),
        "trace_bf16": lambda: A.to(BF)[:, :3].trace(),
        "pad_reflect_bf16": lambda: F.pad(x4.to(BF), (1, 1, 1, 1), mode="reflect"),
        "pad_reflect_1d_bf16": lambda: F.pad(x3.to(BF), (2, 1), mode="reflect"),
        "pad_replicate_bf16": lambda: F.pad(x3.to(BF), (1, 2), mode="replicate"),
        "pad_replicate_2d_bf16": lambda: F.pad(x4.to(BF), (1, 1, 2, 0), mode="replicate"),
        "pad_constant_bf16": lambda: F.pad(x4.to(BF), (1, 1)),
        # promote
        "cat_bf16_f32": lambda: torch.cat([A.to(BF), A]),
        "cat_bf16_bf16": lambda: torch.cat([A.to(BF), A.to(BF)]),
        "stack_f32_bf16": lambda: torch.stack([A, A.to(BF)]),
        # not registered on CPU: the inputs' dtype
        "exp": lambda: A.exp(),
        "exp_bf16": lambda: A.to(BF).exp(),
        "log_bf16": lambda: A.abs().to(BF).log(),
        "softmax": lambda: F.softmax(A, 1),
        "softmax_bf16": lambda: F.softmax(A.to(BF), 1),
        "log_softmax_bf16": lambda: F.log_softmax(A.to(BF), 1),
        "layer_norm_bf16": lambda: F.layer_norm(A.to(BF), (4,)),
        "batch_norm_bf16": lambda: F.batch_norm(x4.to(BF), None, None, training=True),
        "group_norm_bf16": lambda: F.group_norm(x4.to(BF), 1),
        "gelu_bf16": lambda: F.gelu(A.to(BF)),
        "relu": lambda: F.relu(A),
        "sum_bf16": lambda: A.to(BF).sum(),
        "max_pool2d_bf16": lambda: F.max_pool2d(x4.to(BF), 2),
        "add_f32_bf16": lambda: A + A.to(BF),
        "cosine_similarity_bf16": lambda: F.cosine_similarity(A.to(BF), A.to(BF)),
    }


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def outcome(fn):
    """The output dtype, or "error" where PyTorch refuses the call (mixed dtypes outside autocast)."""
    try:
        return dtype_name(fn())
    except RuntimeError:
        return "error"


def count_to_copy(fn):
    with torch.autograd.profiler.profile() as prof:
        fn()
    return sum(1 for e in prof.function_events if e.name == "aten::_to_copy")


def main():
    out = {"torch_version": torch.__version__,
           "registrations": {"cpu": registrations("AutocastCPU"),
                             "cuda": registrations("AutocastCUDA")}}
    with torch.autocast("cpu", dtype=BF):
        out["cpu_bf16"] = {k: outcome(f) for k, f in cases().items()}

    A, B = torch.randn(3, 4), torch.randn(4, 5)
    nest = {}
    with torch.autocast("cpu", dtype=BF):
        with torch.autocast("cpu", enabled=False):
            nest["disabled_inside"] = dtype_name(A @ B)
            with torch.autocast("cpu", dtype=BF):
                nest["reenabled_inside_disabled"] = dtype_name(A @ B)
        nest["after_disabled_exit"] = dtype_name(A @ B)
        with torch.autocast("cpu", dtype=BF):
            nest["nested_enabled"] = dtype_name(A @ B)
        nest["after_nested_exit"] = dtype_name(A @ B)
    nest["after_outer_exit"] = dtype_name(A @ B)
    out["nesting"] = nest

    x = torch.randn(2, 4)
    w = torch.randn(3, 4, requires_grad=True)
    w_nograd = torch.randn(3, 4)

    def twice(weight, cache_enabled=True):
        def run():
            with torch.autocast("cpu", dtype=BF, cache_enabled=cache_enabled):
                F.linear(x, weight)
                F.linear(x, weight)
        return run

    def two_regions():
        twice(w)()
        twice(w)()

    out["cache"] = {
        "leaf_requires_grad": count_to_copy(twice(w)),
        "no_grad_weight": count_to_copy(twice(w_nograd)),
        "cache_disabled": count_to_copy(twice(w, cache_enabled=False)),
        "two_regions": count_to_copy(two_regions),
    }

    xg = torch.randn(2, 4, requires_grad=True)
    with torch.autocast("cpu", dtype=BF):
        y = F.linear(xg, w)
        loss = F.mse_loss(y, torch.zeros(2, 3))
    loss.backward()
    out["grads"] = {"y": dtype_name(y), "loss": dtype_name(loss),
                    "x_grad": dtype_name(xg.grad), "w_grad": dtype_name(w.grad)}

    with open(os.path.join(HERE, "autocast.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
