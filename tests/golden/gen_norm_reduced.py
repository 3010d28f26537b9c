#!/usr/bin/python3
"""Writes PyTorch 1.13's reference data for the bfloat16/float16 norms read and written directly
(tests/ops/norm_reduced_test.cpp): tests/golden/norm_reduced.json. Run with /usr/bin/python3.

Each case: op (layer_norm, group_norm, rms_norm), name, dtype, args, the inputs (input, weight,
bias, grad_out: tensor specs, input possibly a transposed view) and the results (out, grad_input,
grad_weight, grad_bias, each in the dtype PyTorch returns). Weight and bias are in the input's
dtype: PyTorch 1.13's CPU norms take no mixed dtypes. "reference" says how the results were made:
  native    PyTorch's own kernel on the narrow tensors (its CPU bfloat16 layer_norm)
  float32   PyTorch's float32 op on the widened tensors, results narrowed: where 1.13's CPU
            kernels lack the dtype (float16), and for group_norm, whose 1.13 bfloat16 backward
            is 5% off the float64 result in the weight's gradient on (2, 6, 5, 5)
  formula   x rsqrt(mean(x^2) + eps) w in float64 on the widened tensors, narrowed (PyTorch 1.13
            has no rms_norm)
"""
import os

import torch
import torch.nn.functional as F

from golden_json import dtype_name, enc_tensor, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def rms_norm(x, shape, weight=None, eps=None):
    dims = tuple(range(x.dim() - len(shape), x.dim()))
    e = torch.finfo(torch.float32).eps if eps is None else eps
    y = x * torch.rsqrt((x * x).mean(dims, keepdim=True) + e)
    return y * weight if weight is not None else y


def run(fn, inputs, dtype, reference):
    """(out, grads) of fn over the inputs made leaves in the computing dtype."""
    wide = {"native": dtype, "float32": torch.float32, "formula": torch.float64}[reference]
    leaves = {k: v.to(wide).detach().requires_grad_(k != "grad_out")
              for k, v in inputs.items() if v is not None}
    out = fn(leaves)
    out.backward(leaves["grad_out"])
    res = {"out": out.detach().to(dtype)}
    for k in ("input", "weight", "bias"):
        if k in leaves:
            res["grad_" + k] = leaves[k].grad.to(dtype)
    return res


def spec(t, transposed):
    """t's tensor spec; a transposed input is stored as its contiguous transpose and viewed."""
    if not transposed:
        return enc_tensor(t)
    s = enc_tensor(t.t().contiguous())
    s["base"] = s.pop("shape")
    s["view"] = [["t"]]
    return s


def main():
    torch.manual_seed(0)
    cases = []

    def add(op, name, dtype, args, inputs, fn, transposed=False):
        reference = {"rms_norm": "formula", "group_norm": "float32"}.get(op, "native")
        try:
            res = run(fn, inputs, dtype, reference)
        except RuntimeError:  # 1.13's CPU kernel lacks this dtype
            reference = "float32"
            res = run(fn, inputs, dtype, reference)
        case = {"op": op, "name": name, "dtype": dtype_name(dtype), "args": args,
                "reference": reference}
        for k, v in inputs.items():
            if v is not None:
                case[k] = spec(v, transposed and k == "input")
        for k, v in res.items():
            case[k] = enc_tensor(v)
        cases.append(case)

    for dtype in (torch.bfloat16, torch.float16):
        # layer_norm: Vec tails (40), more than one widened run of 2048 (2060), a transposed
        # input, the affine present, absent, weight only.
        for rows, n, affine, transposed in [(4, 40, "both", False), (4, 40, "none", False),
                                            (1, 2060, "both", False), (6, 40, "both", True),
                                            (5, 33, "weight", False)]:
            if n > 2048 and dtype == torch.float16:
                continue  # the runs' code is the same for both dtypes; keep the file small
            x = (torch.randn(rows, n) * 3 + 1).to(dtype)
            w = torch.randn(n).to(dtype) if affine != "none" else None
            b = torch.randn(n).to(dtype) if affine == "both" else None
            inputs = {"input": x, "weight": w, "bias": b,
                      "grad_out": torch.randn(rows, n).to(dtype)}
            add("layer_norm", f"({rows}, {n}) affine={affine} transposed={transposed}", dtype,
                {"normalized_shape": [n], "eps": 1e-5}, inputs,
                lambda t, n=n: F.layer_norm(t["input"], [n], t.get("weight"), t.get("bias"),
                                            1e-5), transposed)
        # rms_norm: the same row lengths, with and without weight.
        for rows, n, affine, transposed in [(4, 40, True, False), (4, 40, False, False),
                                            (1, 2060, True, False), (6, 40, True, True)]:
            if n > 2048 and dtype == torch.float16:
                continue
            x = (torch.randn(rows, n) * 3 + 1).to(dtype)
            inputs = {"input": x, "weight": torch.randn(n).to(dtype) if affine else None,
                      "grad_out": torch.randn(rows, n).to(dtype)}
            add("rms_norm", f"({rows}, {n}) affine={affine} transposed={transposed}", dtype,
                {"normalized_shape": [n], "eps": 1e-5}, inputs,
                lambda t, n=n: rms_norm(t["input"], [n], t.get("weight"), 1e-5), transposed)
        # group_norm: planes of 25 and 40 elements, with and without the affine.
        for shape, g, affine in [((2, 6, 5, 5), 2, True), ((2, 6, 5, 5), 3, False),
                                 ((2, 8, 40), 4, True)]:
            C = shape[1]
            inputs = {"input": (torch.randn(*shape) * 2 - 1).to(dtype),
                      "weight": torch.randn(C).to(dtype) if affine else None,
                      "bias": torch.randn(C).to(dtype) if affine else None,
                      "grad_out": torch.randn(*shape).to(dtype)}
            add("group_norm", f"{shape} G={g} affine={affine}", dtype,
                {"num_groups": g, "eps": 1e-5}, inputs,
                lambda t, g=g: F.group_norm(t["input"], g, t.get("weight"), t.get("bias"), 1e-5))
    write_cases(os.path.join(HERE, "norm_reduced.json"), cases)


if __name__ == "__main__":
    main()
