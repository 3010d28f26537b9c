#!/usr/bin/python3
"""Writes PyTorch's reference results for ember's linear algebra tests (tests/ops/linalg_test.cpp)
to linalg.json. Run with Debian's /usr/bin/python3, which has PyTorch 1.13.

Each case is one call of an op on inputs built in both frameworks the same way: a contiguous base
tensor from `data`, then the `view` ops applied in order (t, transpose, permute, slice, expand,
unsqueeze, select), so that transposed, sliced and broadcast (stride-0) layouts reach the op:

  {"name": str, "op": "mm" | "bmm" | "matmul" | "mv" | "dot" | "vdot" | "outer" | "addmm" |
           "addmv" | "addbmm" | "baddbmm" | "linear" | "einsum",
   "inputs": [{"dtype": str, "base": [int], "data": [number], "view": [[str, args...]]}],
   "args": {"beta": number, "alpha": number, "equation": str},     (when the op takes them)
   "expected": {"dtype": str, "shape": [int], "data": [number]}}

Most inputs are small dyadic numbers (k/4, |k| <= 8), whose products and sums are exact in every
float dtype, so the expected values do not depend on summation order; the "randn" cases use full
float32 values and are compared with a float32 rounding tolerance. PyTorch 1.13 has no float16
matmul on the CPU: those cases compute in float32 and round once, which is what newer PyTorch
and ember do (its bfloat16 matmul does the same).
"""
import json
import os

import torch

from golden_json import enc_tensor, enc_values

DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32}
gen = torch.Generator().manual_seed(1234)


def make(shape, dtype="float32", views=(), kind="dyadic"):
    if kind == "randn":
        base = torch.randn(shape, generator=gen)
    elif dtype.startswith("int"):
        base = torch.randint(-5, 6, shape, generator=gen).double()
    else:
        base = torch.randint(-8, 9, shape, generator=gen).double() / 4
    base = base.to(DTYPES[dtype])
    return {"dtype": dtype, "base": list(shape), "data": enc_values(base),
            "view": [list(v) for v in views]}, apply_views(base, views)


def apply_views(t, views):
    for v in views:
        name, args = v[0], v[1:]
        if name == "t":
            t = t.t()
        elif name == "transpose":
            t = t.transpose(*args)
        elif name == "permute":
            t = t.permute(*args[0])
        elif name == "slice":
            dim, start, stop, step = args
            t = t[(slice(None),) * dim + (slice(start, stop, step),)]
        elif name == "expand":
            t = t.expand(*args[0])
        elif name == "unsqueeze":
            t = t.unsqueeze(args[0])
        elif name == "select":
            t = t.select(*args)
        else:
            raise ValueError(name)
    return t


def run(op, tensors, args):
    f = {"mm": torch.mm, "bmm": torch.bmm, "matmul": torch.matmul, "mv": torch.mv,
         "dot": torch.dot, "vdot": torch.vdot, "outer": torch.outer,
         "linear": torch.nn.functional.linear}
    if op in f:
        return f[op](*tensors)
    if op in ("addmm", "addmv", "addbmm", "baddbmm"):
        beta = args.get("beta", 1)
        if beta == 0:
            # beta = 0 ignores self (documented); PyTorch 1.13's CPU baddbmm then reads
            # uninitialised memory and can return NaN, so pass zeros for self instead.
            tensors, beta = [torch.zeros_like(tensors[0])] + tensors[1:], 1
        return getattr(torch, op)(*tensors, beta=beta, alpha=args.get("alpha", 1))
    if op == "einsum":
        return torch.einsum(args["equation"], *tensors)
    raise ValueError(op)


cases = []


def case(name, op, specs, **args):
    """specs: (shape, dtype, views, kind) tuples, trailing fields optional."""
    inputs, tensors = [], []
    for spec in specs:
        j, t = make(*spec)
        inputs.append(j)
        tensors.append(t)
    if any(t.dtype == torch.float16 for t in tensors):
        # Compute in float32, round once (PyTorch 1.13 has no CPU float16 matmul).
        f32 = [t.float() if t.dtype == torch.float16 else t for t in tensors]
        out = run(op, f32, args).half()
    else:
        out = run(op, tensors, args)
    entry = {"name": name, "op": op, "inputs": inputs,
             "expected": enc_tensor(out)}
    if args:
        entry["args"] = args
    cases.append(entry)


T = [("t",)]

# ── mm: layouts, dtypes, vector shapes, empty ──────────────────────────────────────────────
case("mm", "mm", [((3, 4),), ((4, 5),)])
case("mm_a_transposed", "mm", [((4, 3), "float32", T), ((4, 5),)])
case("mm_b_transposed", "mm", [((3, 4),), ((5, 4), "float32", T)])
case("mm_both_transposed", "mm", [((4, 3), "float32", T), ((5, 4), "float32", T)])
case("mm_row_sliced", "mm", [((6, 4), "float32", [("slice", 0, 0, 6, 2)]), ((4, 5),)])
case("mm_col_sliced", "mm", [((3, 8), "float32", [("slice", 1, 2, 6, 1)]), ((4, 5),)])
case("mm_strided_both", "mm", [((6, 8), "float32", [("slice", 1, 0, 8, 2), ("slice", 0, 0, 6, 2)]),
                               ((4, 5),)])
case("mm_broadcast_row", "mm", [((1, 4), "float32", [("expand", [3, 4])]), ((4, 5),)])
case("mm_row_vector", "mm", [((1, 7),), ((7, 5),)])
case("mm_col_vector", "mm", [((6, 7),), ((7, 1),)])
case("mm_row_vector_bT", "mm", [((1, 7),), ((5, 7), "float32", T)])
case("mm_col_vector_aT", "mm", [((7, 6), "float32", T), ((7, 1),)])
case("mm_1x1", "mm", [((1, 9),), ((9, 1),)])
case("mm_strided_row_vector", "mm", [((7, 3), "float32", T + [("slice", 0, 1, 2, 1)]), ((7, 5),)])
case("mm_float64", "mm", [((3, 4), "float64"), ((4, 5), "float64", [("expand", [4, 5])])])
case("mm_float16", "mm", [((5, 6), "float16"), ((6, 3), "float16")])
case("mm_float16_transposed", "mm", [((6, 5), "float16", T), ((6, 3), "float16")])
case("mm_bfloat16", "mm", [((5, 6), "bfloat16"), ((3, 6), "bfloat16", T)])
case("mm_int64", "mm", [((3, 4), "int64"), ((5, 4), "int64", T)])
case("mm_int32", "mm", [((3, 4), "int32"), ((4, 2), "int32")])
case("mm_k0", "mm", [((3, 0),), ((0, 4),)])
case("mm_m0", "mm", [((0, 3),), ((3, 4),)])
case("mm_n0", "mm", [((2, 3),), ((3, 0),)])
case("mm_randn", "mm", [((17, 40), "float32", (), "randn"), ((40, 9), "float32", (), "randn")])
case("mm_randn_transposed", "mm", [((40, 17), "float32", T, "randn"),
                                   ((9, 40), "float32", T, "randn")])

# ── bmm ─────────────────────────────────────────────────────────────────────────────────────
case("bmm", "bmm", [((2, 3, 4),), ((2, 4, 5),)])
case("bmm_transposed", "bmm", [((2, 4, 3), "float32", [("transpose", 1, 2)]),
                               ((2, 5, 4), "float32", [("transpose", 1, 2)])])
case("bmm_expanded_batch", "bmm", [((3, 3, 4),), ((1, 4, 5), "float32", [("expand", [3, 4, 5])])])
case("bmm_expanded_both", "bmm", [((1, 3, 4), "float32", [("expand", [4, 3, 4])]),
                                  ((1, 4, 5), "float32", [("expand", [4, 4, 5])])])
case("bmm_batch_inner", "bmm", [((3, 2, 4), "float32", [("permute", [1, 0, 2])]), ((2, 4, 5),)])
case("bmm_row_vectors", "bmm", [((3, 1, 6),), ((3, 6, 4),)])
case("bmm_col_vectors", "bmm", [((3, 5, 6),), ((3, 6, 1),)])
case("bmm_float64", "bmm", [((2, 3, 4), "float64"), ((2, 4, 5), "float64")])
case("bmm_float16", "bmm", [((2, 3, 4), "float16"), ((2, 4, 5), "float16")])
case("bmm_bfloat16", "bmm", [((2, 3, 4), "bfloat16"), ((2, 4, 5), "bfloat16")])
case("bmm_int64", "bmm", [((2, 3, 4), "int64"), ((2, 5, 4), "int64", [("transpose", 1, 2)])])
case("bmm_batch0", "bmm", [((0, 3, 4),), ((0, 4, 5),)])
case("bmm_k0", "bmm", [((2, 3, 0),), ((2, 0, 5),)])
case("bmm_randn", "bmm", [((3, 9, 20), "float32", (), "randn"), ((3, 20, 7), "float32", (), "randn")])

# ── matmul: every rank case ────────────────────────────────────────────────────────────────
case("matmul_1d_1d", "matmul", [((5,),), ((5,),)])
case("matmul_2d_1d", "matmul", [((3, 5),), ((5,),)])
case("matmul_1d_2d", "matmul", [((5,),), ((5, 3),)])
case("matmul_2d_2d", "matmul", [((3, 5),), ((5, 2),)])
case("matmul_3d_1d", "matmul", [((2, 3, 5),), ((5,),)])
case("matmul_1d_3d", "matmul", [((5,),), ((2, 5, 3),)])
case("matmul_3d_2d", "matmul", [((2, 3, 5),), ((5, 4),)])
case("matmul_3d_2d_unfoldable", "matmul", [((3, 2, 5), "float32", [("transpose", 0, 1)]),
                                           ((5, 4),)])
case("matmul_3d_1d_unfoldable", "matmul", [((3, 2, 5), "float32", [("transpose", 0, 1)]), ((5,),)])
case("matmul_2d_3d", "matmul", [((3, 5),), ((2, 5, 4),)])
case("matmul_3d_3d", "matmul", [((2, 3, 5),), ((2, 5, 4),)])
case("matmul_batch_broadcast", "matmul", [((1, 3, 5),), ((2, 5, 4),)])
case("matmul_4d_3d_broadcast", "matmul", [((2, 1, 3, 4),), ((5, 4, 2),)])
case("matmul_1d_4d", "matmul", [((4,),), ((2, 3, 4, 2),)])
case("matmul_4d_1d", "matmul", [((2, 3, 2, 4),), ((4,),)])
case("matmul_int64", "matmul", [((2, 3, 4), "int64"), ((4, 2), "int64")])
case("matmul_empty_batch", "matmul", [((0, 3, 4),), ((4, 2),)])
case("matmul_k0", "matmul", [((2, 3, 0),), ((0, 2),)])

# ── mv, dot, vdot, outer ────────────────────────────────────────────────────────────────────
case("mv", "mv", [((3, 4),), ((4,),)])
case("mv_transposed", "mv", [((4, 3), "float32", T), ((4,),)])
case("mv_strided_vec", "mv", [((3, 4),), ((8,), "float32", [("slice", 0, 0, 8, 2)])])
case("mv_broadcast_vec", "mv", [((3, 4),), ((1,), "float32", [("expand", [4])])])
case("mv_float64", "mv", [((3, 4), "float64"), ((4,), "float64")])
case("mv_bfloat16", "mv", [((3, 4), "bfloat16"), ((4,), "bfloat16")])
case("mv_int64", "mv", [((3, 4), "int64"), ((4,), "int64")])
case("mv_k0", "mv", [((3, 0),), ((0,),)])
case("dot", "dot", [((7,),), ((7,),)])
case("dot_strided", "dot", [((14,), "float32", [("slice", 0, 1, 14, 2)]), ((7,),)])
case("dot_float64", "dot", [((7,), "float64"), ((7,), "float64")])
case("dot_float16", "dot", [((7,), "float16"), ((7,), "float16")])
case("dot_int64", "dot", [((7,), "int64"), ((7,), "int64")])
case("dot_empty", "dot", [((0,),), ((0,),)])
case("dot_randn", "dot", [((300,), "float32", (), "randn"), ((300,), "float32", (), "randn")])
case("vdot", "vdot", [((6,),), ((6,),)])
case("outer", "outer", [((3,),), ((4,),)])
case("outer_promotes", "outer", [((3,),), ((4,), "float64")])
case("outer_int64", "outer", [((3,), "int64"), ((4,), "int64")])

# ── the add-forms ───────────────────────────────────────────────────────────────────────────
case("addmm", "addmm", [((3, 5),), ((3, 4),), ((4, 5),)])
case("addmm_scaled", "addmm", [((3, 5),), ((3, 4),), ((4, 5),)], beta=0.5, alpha=2)
case("addmm_beta0", "addmm", [((3, 5),), ((3, 4),), ((4, 5),)], beta=0, alpha=1.5)
case("addmm_row_bias", "addmm", [((5,),), ((3, 4),), ((4, 5),)])
case("addmm_col_bias", "addmm", [((3, 1),), ((4, 3), "float32", T), ((5, 4), "float32", T)])
case("addmm_scalar_self", "addmm", [((),), ((3, 4),), ((4, 5),)], beta=-1)
case("addmm_transposed_self", "addmm", [((5, 3), "float32", T), ((3, 4),), ((4, 5),)])
case("addmm_k0", "addmm", [((3, 5),), ((3, 0),), ((0, 5),)], beta=2)
case("addmm_float64", "addmm", [((3, 5), "float64"), ((3, 4), "float64"), ((4, 5), "float64")],
     beta=0.25, alpha=-3)
case("addmm_bfloat16", "addmm", [((5,), "bfloat16"), ((3, 4), "bfloat16"), ((4, 5), "bfloat16")])
case("addmm_float16", "addmm", [((5,), "float16"), ((3, 4), "float16"), ((4, 5), "float16")],
     beta=0.5)
case("addmm_int64", "addmm", [((3, 5), "int64"), ((3, 4), "int64"), ((4, 5), "int64")],
     beta=2, alpha=3)
case("addmv", "addmv", [((3,),), ((3, 4),), ((4,),)])
case("addmv_scaled", "addmv", [((),), ((4, 3), "float32", T), ((4,),)], beta=0.5, alpha=-2)
case("addmv_int64", "addmv", [((3,), "int64"), ((3, 4), "int64"), ((4,), "int64")], beta=3)
case("addbmm", "addbmm", [((3, 5),), ((2, 3, 4),), ((2, 4, 5),)])
case("addbmm_scaled", "addbmm", [((5,),), ((2, 4, 3), "float32", [("transpose", 1, 2)]),
                                 ((2, 4, 5),)], beta=0.5, alpha=2)
case("addbmm_int64", "addbmm", [((3, 5), "int64"), ((2, 3, 4), "int64"), ((2, 4, 5), "int64")])
case("addbmm_batch0", "addbmm", [((3, 5),), ((0, 3, 4),), ((0, 4, 5),)], beta=3)
case("baddbmm", "baddbmm", [((2, 3, 5),), ((2, 3, 4),), ((2, 4, 5),)])
case("baddbmm_scaled", "baddbmm", [((3, 5),), ((2, 3, 4),),
                                   ((1, 4, 5), "float32", [("expand", [2, 4, 5])])],
     beta=-1, alpha=0.5)
case("baddbmm_float64", "baddbmm", [((2, 3, 5), "float64"), ((2, 3, 4), "float64"),
                                    ((2, 4, 5), "float64")], beta=0, alpha=2)

# ── linear ──────────────────────────────────────────────────────────────────────────────────
case("linear", "linear", [((2, 3),), ((4, 3),), ((4,),)])
case("linear_no_bias", "linear", [((2, 3),), ((4, 3),)])
case("linear_3d", "linear", [((2, 5, 3),), ((4, 3),), ((4,),)])
case("linear_3d_noncontiguous", "linear", [((5, 2, 3), "float32", [("transpose", 0, 1)]),
                                           ((4, 3),), ((4,),)])
case("linear_weight_view", "linear", [((2, 3),), ((3, 4), "float32", T), ((4,),)])
case("linear_1d_input", "linear", [((3,),), ((4, 3),), ((4,),)])
case("linear_1d_weight", "linear", [((5, 3),), ((3,),)])
case("linear_1d_both", "linear", [((3,),), ((3,),), ((),)])
case("linear_float64", "linear", [((2, 3), "float64"), ((4, 3), "float64"), ((4,), "float64")])
case("linear_bfloat16", "linear", [((2, 3), "bfloat16"), ((4, 3), "bfloat16"),
                                   ((4,), "bfloat16")])
case("linear_randn", "linear", [((16, 50), "float32", (), "randn"),
                                ((12, 50), "float32", (), "randn"),
                                ((12,), "float32", (), "randn")])

# ── einsum ──────────────────────────────────────────────────────────────────────────────────
def ein(name, eq, specs):
    case(name, "einsum", specs, equation=eq)


ein("einsum_matmul", "ij,jk->ik", [((3, 4),), ((4, 5),)])
ein("einsum_matmul_implicit", "ij,jk", [((3, 4),), ((4, 5),)])
ein("einsum_batch_matmul", "bij,bjk->bik", [((2, 3, 4),), ((2, 4, 5),)])
ein("einsum_batch_matmul_bT", "bij,bkj->bik", [((2, 3, 4),), ((2, 5, 4),)])
ein("einsum_trace", "ii->", [((4, 4),)])
ein("einsum_trace_implicit", "ii", [((4, 4),)])
ein("einsum_diagonal", "ii->i", [((4, 4),)])
ein("einsum_diagonal_transposed", "ii->i", [((4, 4), "float32", T)])
ein("einsum_diagonal_3", "iji->j", [((3, 2, 3),)])
ein("einsum_diagonal_batched", "bii->bi", [((2, 3, 3),)])
ein("einsum_outer", "i,j->ij", [((3,),), ((4,),)])
ein("einsum_outer_implicit", "i,j", [((3,),), ((4,),)])
ein("einsum_sum", "ij->", [((3, 4),)])
ein("einsum_sum_transposed", "ij->", [((4, 3), "float32", T)])
ein("einsum_transpose", "ij->ji", [((3, 4),)])
ein("einsum_row_sum", "ij->i", [((3, 4),)])
ein("einsum_col_sum", "ij->j", [((3, 4),)])
ein("einsum_sum_middle", "ijk->ik", [((2, 3, 4),)])
ein("einsum_ellipsis_matmul", "...ij,...jk->...ik", [((2, 3, 4),), ((2, 4, 5),)])
ein("einsum_ellipsis_broadcast", "...ij,...jk->...ik", [((2, 1, 3, 4),), ((5, 4, 2),)])
ein("einsum_ellipsis_implicit", "...ij,...jk", [((2, 3, 4),), ((4, 5),)])
ein("einsum_ellipsis_summed", "...ij->ij", [((2, 3, 4),)])
ein("einsum_ellipsis_front", "i...->...", [((3, 2, 4),)])
ein("einsum_bilinear", "bn,anm,bm->ba", [((2, 3),), ((4, 3, 5),), ((2, 5),)])
ein("einsum_chain", "ij,jk,kl->il", [((2, 3),), ((3, 4),), ((4, 5),)])
ein("einsum_three_outer", "a,b,c->abc", [((2,),), ((3,),), ((4,),)])
ein("einsum_dot", "i,i->", [((5,),), ((5,),)])
ein("einsum_hadamard", "ij,ij->ij", [((3, 4),), ((3, 4),)])
ein("einsum_mul_sum_rows", "ij,ij->i", [((3, 4),), ((3, 4),)])
ein("einsum_one_sided_sum", "ij,jk->k", [((3, 4),), ((4, 5),)])
ein("einsum_uppercase", "Bi,iB->", [((3, 4),), ((4, 3),)])
ein("einsum_implicit_order", "cA,Ab", [((3, 4),), ((4, 2),)])
ein("einsum_label_broadcast", "bij,bjk->bik", [((1, 2, 3),), ((4, 3, 5),)])
ein("einsum_attention", "bhqd,bhkd->bhqk", [((2, 2, 3, 4),), ((2, 2, 5, 4),)])
ein("einsum_spaces", "ij, jk -> ik", [((2, 3),), ((3, 2),)])
ein("einsum_float64", "ij,jk->ik", [((3, 4), "float64"), ((4, 5), "float64")])
ein("einsum_int64", "bij,bjk->bik", [((2, 3, 4), "int64"), ((2, 4, 5), "int64")])
ein("einsum_int64_trace", "ii->", [((4, 4), "int64")])
ein("einsum_int32_sum_is_int64", "ij->i", [((3, 4), "int32")])
ein("einsum_int32_matmul", "ij,jk->ik", [((3, 4), "int32"), ((4, 2), "int32")])
ein("einsum_bfloat16_sum", "ij,jk->k", [((3, 4), "bfloat16"), ((4, 2), "bfloat16")])
ein("einsum_empty_contraction", "ij,jk->ik", [((3, 0),), ((0, 4),)])
ein("einsum_randn", "bij,bjk->bik", [((3, 10, 12), "float32", (), "randn"),
                                     ((3, 12, 6), "float32", (), "randn")])

out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg.json")
with open(out_path, "w") as f:
    json.dump({"generator": "tests/golden/gen_linalg.py", "torch": torch.__version__,
               "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {len(cases)} cases to {out_path}")
