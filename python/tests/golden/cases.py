"""Golden cases for ember's Python front end: the tensor, indexing and autograd surface, compared
against PyTorch 1.13 (python/tests/golden/generate.py writes <group>.json from these lists;
python/tests/test_golden.py replays them with `torch` bound to ember).

Plain data: no torch import. Every case is a dict:
  setup   Python statements (exec), may be ""; multi-line setups are "\\n"-joined
  expr    one expression (eval); its value is the case's result
  raises  (optional) the exception class name the case is meant to raise; the generator checks
          that PyTorch really raises it (a case without `raises` must not raise)
  strides (optional) True: tensors in the result are encoded with stride and storage_offset
  rtol, atol (optional) tolerance for every float in the result instead of the per-dtype one
  label   (optional) short text for the test id instead of expr (used where expr is just "t")
Both sides call torch.manual_seed(0) before each case. Names seen: `torch`, `np` (numpy).

Append new cases at the END of a group: a case's id is its index in the group.

Where ember deliberately differs from PyTorch 1.13 the case is not here but in
python/tests/test_deviations.py, which says why: t[..., ...] (1.13 accepts two ellipses, NumPy
and ember do not), a 2-D bool mask followed by another index (1.13 miscounts the mask's dims and
raises; ember gives NumPy's result), int32 index tensors (1.13 refuses them; ember, like later
PyTorch, accepts them).
"""


def C(expr, setup="", raises=None, strides=False, rtol=None, atol=None, label=None):
    case = {"setup": setup, "expr": expr}
    if label:
        case["label"] = label
    if raises:
        case["raises"] = raises
    if strides:
        case["strides"] = True
    if rtol is not None:
        case["rtol"] = rtol
    if atol is not None:
        case["atol"] = atol
    return case


def block(setup, items, **common):
    """Cases sharing one setup. An item is an expr string, or (expr, raises), or a dict of C()'s
    keyword arguments (its own "setup" is appended to the shared one)."""
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(C(item, setup, **common))
        elif isinstance(item, tuple):
            out.append(C(item[0], setup, raises=item[1], **common))
        else:
            kw = dict(common)
            kw.update(item)
            own = kw.pop("setup", "")
            if own and "label" not in kw:
                kw["label"] = "%s -> %s" % (own.strip().splitlines()[-1], kw["expr"])
            kw["setup"] = "\n".join(s for s in (setup, own) if s)
            out.append(C(**kw))
    return out


def writes(base, items, expr="t"):
    """__setitem__ / write-through cases: each item is a statement run after `base` (or
    (statement, raises)); the result is `expr` afterwards."""
    out = []
    for item in items:
        stmt, raises = (item, None) if isinstance(item, str) else item
        out.append(C(expr, base + "\n" + stmt, raises=raises, label="%s -> %s" % (stmt, expr)))
    return out


IE, RE, TE, VE = "IndexError", "RuntimeError", "TypeError", "ValueError"

T3 = "t = torch.arange(60).reshape(3, 4, 5)"
T2 = "t = torch.arange(12).reshape(3, 4)"
T1 = "t = torch.arange(10)"
T0 = "s = torch.tensor(5)"
TF = "t = torch.randn(3, 4)"
VIEW = "(v.shape, v.stride(), v.storage_offset(), v.is_contiguous())"

# ══ indexing ═══════════════════════════════════════════════════════════════════════════════════
INDEXING = []

# ── single integers ──
INDEXING += block(T3, [
    "t[0]", "t[2]", "t[-1]", "t[-3]",
    ("t[3]", IE), ("t[-4]", IE), ("t[100]", IE),
    "t[1, 2]", "t[1, -1]", "t[-1, -4]", "t[1, 2, 3]", "t[-1, -1, -1]",
    ("t[0, 4]", IE), ("t[0, -5]", IE), ("t[0, 0, 5]", IE), ("t[1, 2, 3, 0]", IE),
    "t[0][1][2]", "t[2][-1]", "t[np.int64(1)]", "t[1, np.int32(2)]",
    ("t[1.5]", IE), ("t['a']", TE), ("t[1, 1.0]", IE),
])
INDEXING += block(T1, [
    "t[3]", "t[-1]", "t[-10]", ("t[10]", IE), ("t[-11]", IE),
    "t[2:8:3]", "t[None, :, None]", "t[t > 5]", "t[[1, 1, 1]]",
    "t[torch.tensor([[1, 2], [3, 4]])]", "t[-3:]", "t[::4]",
])
INDEXING += block(T0, [
    "s[None]", "s[...]", "s[()]", ("s[0]", IE), "s[True]", "s[False]", "s[None, None]",
    "s[..., None]", "s[s > 3]", "s[s > 9]", "s[torch.tensor(True)]", ("s[:]", IE),
])

# ── slices ──
INDEXING += block(T3, [
    "t[1:3]", "t[1:]", "t[:2]", "t[:]", "t[::2]", "t[::3]", "t[1::2]",
    "t[:, :, ::3]", "t[:, ::2, 1::2]", "t[::2, ::3, ::4]",
    "t[-2:]", "t[:-1]", "t[-3:-1]", "t[-1:]", "t[-5:-3]", "t[2:-5]",
    "t[1:100]", "t[-100:2]", "t[-100:100]", "t[5:10]", "t[2:1]", "t[3:]", "t[:0]",
    "t[:, 4:]", "t[:, 1:3, 2:4]", "t[0, 1:3]", "t[1:2, 1:2, 1:2]", "t[1, :, 2]",
    "t[:, -1]", "t[:, :, -2:]", "t[torch.tensor(1):3]", "t[0:3:torch.tensor(2)]",
    ("t[::-1]", VE), ("t[..., ::-1]", VE), ("t[:, 3:0:-1]", VE), ("t[::0]", VE),
    "t[None:None:None]", "t[1:3][:, 1:3]", "t[1:3][0]", "t[slice(1, 3)]",
    "t[:, slice(None, None, 2)]", "t[1:3].shape", "t[5:10].shape",
])

# ── None ──
INDEXING += block(T3, [
    "t[None]", "t[:, None]", "t[:, :, None]", "t[:, :, :, None]", "t[..., None]",
    "t[None, ..., None]", "t[None, None]", "t[0, None]", "t[None, 0]", "t[1, None, 2]",
    "t[:, None, 1:3, None]", "t[None, :, None, :, None, :, None]", "t[None, 1:2]",
    "t[2, None, None, 3, None]", ("t[None, 0, 0, 0, 0]", IE), "t[None].shape",
])

# ── Ellipsis ──
INDEXING += block(T3, [
    "t[...]", "t[..., 0]", "t[0, ...]", "t[..., 1, 2]", "t[0, ..., 2]", "t[1, ..., 1:3]",
    "t[..., None, 0]", ("t[..., ..., 0]", IE), "t[Ellipsis]", "t[0, 1, 2, ...]",
    "t[None, ..., None, 0]", "t[..., 0, 1, 2]", "t[0, 1, ..., 2]", "t[..., :]",
    "t[:, ..., :]", ("t[0, 1, 2, 3, ...]", IE), "t[..., 1:3, None]",
])

# ── bool scalars ──
INDEXING += block(T3, [
    "t[True]", "t[False]", "t[True, 0]", "t[0, True]", "t[..., False]", "t[None, True]",
    "t[True, True]", "t[False, 1]", "t[torch.tensor(True)]", "t[torch.tensor(False)]",
    "t[True, ..., False]", "t[1:, True]",
])

# ── bool masks ──
INDEXING += block(T3, [
    "t[t > 30]", "t[t % 7 == 0]", "t[t > 100]",
    "t[torch.tensor([True, False, True])]", "t[[True, False, True]]",
    "t[torch.tensor([[True, False, True, False]] * 3)]",
    "t[:, torch.tensor([True, False, False, True])]",
    "t[..., torch.tensor([True, False, True, False, True])]",
    "t[torch.zeros(3, dtype=torch.bool)]", "t[torch.ones(3, 4, 5, dtype=torch.bool)]",
    ("t[torch.tensor([True, False])]", IE),
    ("t[torch.tensor([[True, False], [False, True]])]", IE),
    ("t[:, torch.tensor([True, False, True])]", IE),
    ("t[torch.ones(3, 4, 5, 1, dtype=torch.bool)]", IE),
    "t[torch.tensor([True, False, True]), 1:3]",
    "t[1:, torch.tensor([True, False, True, False])]",
    "t[0, torch.tensor([True, False, True, False])]",
    "t[torch.tensor([1, 0, 1], dtype=torch.uint8)]",
    "t[torch.tensor([True, False, True]), torch.tensor([0, 1])]",
    ("t[torch.tensor([True, False, True]), torch.tensor([0, 1, 2])]", IE),
    "t[torch.tensor([True, False, True]), :, torch.tensor([0, 4])]",
    "t[torch.tensor([True, False, True])][:, 0]",
    "t[None, torch.tensor([True, False, True])]",
    "t[..., torch.tensor([True, False, True, False, True]), None]",
    "t[t[:, :, 0] > 20]",
    ("t[torch.tensor([[True, False, True, False]] * 3), :, 0]", IE),
    "t[None, torch.tensor([[True, False, True, False]] * 3)]",
    "t[torch.tensor([[True, False, True, False]] * 3), [1]]",
    "t[torch.tensor([[True, False, True, False]] * 3), torch.tensor([0, 1, 2, 3, 4, 0])]",
    "t[1:, torch.tensor([[True, False, True, False, True]] * 4)]",
])

# ── integer tensors and lists ──
INDEXING += block(T3, [
    "t[torch.tensor([0, 2])]", "t[torch.tensor([2, 0, 2])]", "t[torch.tensor([-1])]",
    "t[torch.tensor([-3, -1])]", ("t[torch.tensor([3])]", IE), ("t[torch.tensor([-4])]", IE),
    "t[torch.tensor([[0, 1], [2, 0]])]", "t[torch.tensor([], dtype=torch.long)]", "t[[]]",
    "t[[0, 2]]", "t[[-1, 0]]", "t[[[0, 1], [1, 2]]]", "t[[0]]", "t[[2, 2, 2, 2]]",
    "t[(0, 1)]", "t[[0, 1]]", "t[(0, 1, 2)]", "t[[0, 1, 2]]", "t[[0, slice(1, 3)]]",
    "t[[0, None]]", "t[[[0, 1]]]", "t[[[0, 1], [1, 2], [2, 3]]]", ("t[[5]]", IE),
    ("t[torch.tensor([0., 1.])]", IE),
    ("t[torch.tensor([0, 2], dtype=torch.int8)]", IE), "t[np.array([0, 2])]",
    "t[torch.tensor(1)]", "t[torch.tensor(-1)]", "t[torch.tensor(1), torch.tensor(2)]",
    ("t[torch.tensor(3)]", IE), "t[torch.tensor([1]), torch.tensor(2)]",
    "t[:, torch.tensor([3, 0])]", "t[:, :, torch.tensor([4, 0, 4])]", "t[:, [1, 3]]",
    ("t[:, [4]]", IE), ("t[:, :, [-6]]", IE),
])

# ── mixtures: broadcasting, transposition rule, adjacent advanced indices ──
INDEXING += block(T3, [
    "t[[0, 1, 2], [0, 1, 2]]", "t[[0, 1, 2], [0, 1, 2], [0, 1, 2]]",
    ("t[[0, 1], [0, 1, 2]]", IE),
    "t[torch.tensor([[0], [2]]), torch.tensor([1, 2, 3])]",
    "t[torch.tensor([[0], [2]]), :, torch.tensor([1, 2, 3])]",
    "t[:, torch.tensor([[0], [2]]), torch.tensor([1, 2, 3])]",
    "t[[0, 2], 1:3]", "t[torch.tensor([0, 2]), 1:3]",
    "t[[0, 2], :, [1, 3]]", "t[:, [0, 2], [1, 3]]", "t[[0, 1], [1, 2]]",
    "t[0, :, [1, 2]]", "t[[1, 2], :, 0]", "t[:, 0, [1, 2]]", "t[1, [0, 2]]",
    "t[1, [0, 2], [1, 3]]", "t[[0, 2], 1]", "t[[0, 2], 1, [1, 3]]", "t[[0, 2], 1:3, 1]",
    "t[1:3, [0, 2], 1]", "t[[0, 2], None]", "t[None, [0, 2]]", "t[..., [0, 1]]",
    "t[[0, 1], ..., [1, 2]]", "t[None, ..., [0, 2]]", "t[:, None, [0, 1]]",
    "t[[0, 1], None, [0, 1]]", "t[[0, 1], :, None, [0, 1]]", "t[..., [0, 1], None]",
    "t[[[0], [1]], [[1, 2]]]", "t[[0, 1], [[1], [2]]]", "t[[0, 2]][:, [1, 3]]",
    "t[True, [0, 1]]", "t[[0, 2], True]", "t[[0, 2], ..., 1:4:2]",
    "t[torch.tensor([[0, 1], [1, 2]]), :, torch.tensor([[0], [4]])]",
    "t[1:, [0, 3], ::2]", "t[[2], [3], [4]]", "t[[0, 1], 1, 2]", "t[0, [1], 2]",
])
INDEXING += block(T3 + "; tt = t.transpose(0, 2)", [
    "tt[1, [0, 2]]", "tt[tt > 40]", "tt[:, 1:3, [0, 2]]", "tt[[4, 0]]", "tt[..., 1]",
])
INDEXING += block("e = torch.arange(3).expand(4, 3)", ["e[[0, 3], 1]", "e[e > 0]", "e[1:3]"])

# ── 2-D and float tensors ──
INDEXING += block(T2, [
    "t[t > 5]", "t[t % 3 == 0]", "t[[0, 2]][:, [1, 3]]", "t[[[0], [2]], [1, 3]]", "t[:, 1]",
    "t[1]", "t[-1, -1]", "t.T[1]", "t[(t > 8).nonzero(as_tuple=True)]",
    "t[t.sum(dim=1) > 10]", "t[:, t[0] > 1]", "t[[0, 2], [3, 0]]",
    "t[torch.tensor([[0, 1], [1, 2]])]", "t[..., [-1]]", "t[1:, 1:][0]",
    "t[[True, False, True], [1, 3]]",
])
INDEXING += block(TF, [
    "t[t > 0]", "t[:, 1:3]", "t[[0, 2]]", "t[torch.arange(3), t.argmax(dim=1)]",
    "t[t.abs() < 0.5]", "t[..., 0]", "t[1, None]",
])
INDEXING += block("e = torch.zeros(0, 3)", [
    ("e[0]", IE), "e[:, 1]", "e[e > 0]", "e[[]]", "e[..., None]", "e[1:]",
])

# ── __setitem__ ──
INDEXING += writes(T3, [
    "t[0] = 0", "t[-1, 2] = 100", "t[1:3] = -1", "t[:, ::2] = 7", "t[None, 0] = 5",
    "t[...] = 3", "t[..., 0] = torch.tensor([9, 8, 7, 6])", "t[True] = 1", "t[False] = 1",
    "t[t > 30] = 0", "t[t % 2 == 0] = -t[t % 2 == 0]",
    "t[torch.tensor([True, False, True])] = 0", "t[torch.tensor([0, 2])] = 5",
    "t[[0, 2]] = torch.arange(5)", "t[[0, 2], :, [1, 3]] = torch.tensor([[1], [2]])",
    "t[:, [0, 2], [1, 3]] = -7", "t[torch.tensor(1)] = 0", "t[1, 2, 3] = 1000",
    "t[1, 2, 3] = torch.tensor(1000)", "t[0] = torch.ones(4, 5, dtype=torch.long) * 2",
    "t[0, 0] = torch.tensor([1.7, 2.2, 3.9, -4.5, 0.5])", "t[0] = 2.9", "t[0] = True",
    ("t[3] = 1", IE), ("t[0] = torch.tensor([1, 2, 3])", RE),
    ("t[[0, 1]] = torch.ones(3, 4, 5, dtype=torch.long)", RE),
    ("t[0, 0] = [1, 2, 3, 4, 5]", TE), ("t[::-1] = 0", VE),
    "t[0][1] = 0", "t[[0, 1]][0] = 0", "t[t > 30][0] = 0",
    "t[t > 55] = torch.tensor([1, 2, 3, 4])", ("t[t > 55] = torch.tensor([1, 2, 3])", RE),
    "t.index_put_((torch.tensor([0, 0]), torch.tensor([1, 1])), "
    "torch.tensor([[1, 1, 1, 1, 1], [2, 2, 2, 2, 2]]), accumulate=True)",
    "t[:, 1:3, [0, 4]] = torch.tensor([[10, 20], [30, 40]])",
    "t[1:, None, 1:3] = torch.tensor([-1, -2, -3, -4, -5])",
    "t[0, ..., 1] = torch.tensor([[5, 6, 7, 8]])", "t[[0, 2], 1] = torch.tensor([[1], [2]])",
    "t[torch.tensor([[0], [2]]), torch.tensor([1, 3])] = 0",
    "t[[0, 2]] = 1.5", ("t[[0, 2]] = torch.tensor(1.5)", RE), "t[t > 3] = torch.tensor(1.5)",
    "t[t > 3] = torch.tensor([-1.5])", ("t[t > 55] = torch.tensor([1.5, 2.5, 3.5, 4.5])", RE),
    ("t[0, 0, [0, 1]] = torch.tensor([1, 2], dtype=torch.int32)", RE),
    "t[0, 0] = torch.tensor([1, 2, 3, 4, 5], dtype=torch.int32)",
    "t[torch.tensor([True, False, True])] = torch.tensor(2.5)",
])
INDEXING += writes("t = torch.zeros(2, 3)", [
    "t[0] = torch.tensor([1, 2, 3])", "t[:, 1] = 2.5", "t[t == 0] = float('nan')",
    "t[0, 0] = float('inf')", "t[1] = torch.tensor([True, False, True])",
    "t[...] = torch.tensor([1.5, 2.5, 3.5], dtype=torch.float64)",
    "t[[0, 1], [2, 0]] = torch.tensor([7., 8.])", "t[1] = torch.tensor([[4., 5., 6.]])",
    ("t[0] = torch.tensor([[1., 2., 3.], [4., 5., 6.]])", RE),
    "t[:, :2] = torch.tensor([[1.], [2.]])", "t[0, 1] = -0.25",
])
INDEXING += writes(T2, [
    "tt = t.T; tt[0] = 0", "t[:, ::2] = torch.tensor([10, 20])",
    "t[:] = torch.tensor([1, 2, 3, 4])", "t[:, :2] = torch.tensor([[7], [8], [9]])",
    "t[1] = torch.tensor(5)", "t[0] = torch.tensor([[1, 2, 3, 4]])",
    "t[t > 5] = t[t > 5] * 10", "t[[0, 0, 2]] = torch.tensor([1, 2, 3, 4])",
    "t[:, [True, False, True, False]] = 0", "t[torch.tensor([2, 0])] = torch.tensor([[1], [2]])",
])
INDEXING += writes("b = torch.zeros(3, dtype=torch.bool)", [
    "b[1] = 5", ("b[[0, 2]] = torch.tensor([1., 0.])", RE), "b[b == False] = True",
], expr="b")
INDEXING += writes("u = torch.zeros(3, dtype=torch.uint8)", [
    "u[0] = 255", ("u[0] = 300", RE), "u[0] = -1", "u[0] = -129", ("u[0] = 256", RE), "u[1:] = torch.tensor([300, -1])",
], expr="u")

# ── views vs copies (write-through) ──
INDEXING += writes(T3, [
    "v = t[1:3]; v[0, 0, 0] = 100", "v = t[1]; v.fill_(0)", "v = t[None]; v[0, 0, 0, 0] = -5",
    "v = t[..., 1]; v += 100", "v = t[[1, 2]]; v[0] = 0", "v = t[t > 50]; v[:] = 0",
    "v = t[True]; v[0, 0, 0, 0] = 99", "v = t[torch.tensor(1)]; v[0, 0] = -1",
    "v = t[torch.tensor([1])]; v[0, 0, 0] = -1", "v = t[:, 1:3][1]; v[0] = -2",
    "v = t[::2, ::2]; v.zero_()", "v = t[1, [0, 1]]; v[0] = 0", "v = t.view(-1); v[7] = 0",
    "v = t[...]; v[0, 0, 0] = -9", "v = t[torch.tensor([True, False, True])]; v.zero_()",
    "v = t[0, None, 1:3]; v[0, 1, 4] = -3", "v = t[:, :, 2]; v[:] = 1",
])
INDEXING += writes(T0, ["v = s[()]; v.fill_(7)", "v = s[None]; v[0] = 8", "v = s[...]; v += 1"],
                   expr="s")
INDEXING += block(T3, ["(t[...] is t)", "(t[:] is t)", "(t[()] is t)"])

# ── strides and offsets of views ──
INDEXING += block(T3, [
    {"setup": "v = t[1]", "expr": VIEW}, {"setup": "v = t[:, 1]", "expr": VIEW},
    {"setup": "v = t[..., 2]", "expr": VIEW}, {"setup": "v = t[:, ::2]", "expr": VIEW},
    {"setup": "v = t[1:, 1:, 1:]", "expr": VIEW}, {"setup": "v = t[None]", "expr": VIEW},
    {"setup": "v = t[:, None]", "expr": VIEW}, {"setup": "v = t[1, None, 2:]", "expr": VIEW},
    {"setup": "v = t[::2, ::3, 1::2]", "expr": VIEW}, {"setup": "v = t[True]", "expr": VIEW},
    {"setup": "v = t[False]", "expr": VIEW}, {"setup": "v = t[[0, 1]]", "expr": VIEW},
    {"setup": "v = t[t > 30]", "expr": VIEW}, {"setup": "v = t[3:]", "expr": VIEW},
    {"setup": "v = t[2, 3, 4]", "expr": VIEW}, {"setup": "v = t[..., None]", "expr": VIEW},
    {"setup": "v = t[:, [0, 2], 1:3]", "expr": VIEW},
    {"setup": "v = t[[0, 2], :, [1, 3]]", "expr": VIEW},
    {"setup": "v = t.transpose(0, 2)[1:, 2]", "expr": VIEW},
])
INDEXING += block(T3, ["t[:, 1]", "t[1:, ::2, 3]", "t[None, 2]", "t[[0, 2]]"], strides=True)

# ══ tensor_api ═════════════════════════════════════════════════════════════════════════════════
TENSOR_API = []

# ── factories ──
TENSOR_API += block("", [
    "torch.zeros(3, 4)", "torch.zeros((3, 4))", "torch.zeros([3, 4])",
    "torch.zeros(torch.Size([2, 3]))", "torch.zeros(0)", "torch.zeros(())", "torch.zeros([])",
    "torch.zeros(2, 3, dtype=torch.int32)", "torch.ones(2, 3)", "torch.ones((2,), dtype=torch.bool)",
    "torch.ones(2, 2, dtype=torch.float64)", "torch.full((3, 3), 3.14)", "torch.full((2,), 7)",
    "torch.full((2,), True)", "torch.full((2, 2), 7, dtype=torch.float32)",
    "torch.full((2,), 1.5, dtype=torch.int64)", "torch.empty(2, 3).shape",
    "torch.empty((4,), dtype=torch.int16).dtype", "torch.eye(4)", "torch.eye(2, 3)",
    "torch.eye(3, dtype=torch.int64)", "torch.arange(5)", "torch.arange(0, 10, 2)",
    "torch.arange(0., 1., 0.25)", "torch.arange(1, 4, dtype=torch.float32)", "torch.arange(5.)",
    "torch.arange(10, 0, -3)", "torch.arange(0, 1, 0.1)", ("torch.arange(0, 10, 0)", RE),
    "torch.linspace(0, 1, steps=5)", "torch.linspace(-1, 1, 4)", "torch.linspace(0, 1, 1)",
    "torch.logspace(0, 2, steps=3)", "torch.logspace(0, 3, 4, base=2)",
    "torch.zeros(2, requires_grad=True)", ("torch.zeros(-1)", RE), ("torch.zeros('a')", TE),
    ("torch.zeros(2, 3.0)", TE), ("torch.ones(2, dtype='float32')", TE),
])

# ── random streams (ember reproduces PyTorch's CPU generator) ──
TENSOR_API += block("", [
    "torch.rand(3, 4)", "torch.randn(3, 4)", "torch.randn(4, 4)", "torch.randn(20)",
    "torch.randn(3, 7)", "torch.rand(100)[-4:]", "torch.randint(0, 10, (3, 4))",
    "torch.randint(5, (4,))", "torch.randint(-3, 3, (2, 3), dtype=torch.int32)",
    "torch.randperm(8)", "torch.randperm(30)", "torch.rand_like(torch.zeros(2, 3))",
    "torch.randn_like(torch.zeros(2, 3, dtype=torch.float64))",
    "torch.randint_like(torch.zeros(5), 0, 4)", "torch.rand(3, dtype=torch.float64)",
    "torch.randn(2, 2, dtype=torch.float64)", "(torch.rand(2), torch.rand(2))",
    "(torch.randn(3), torch.rand(2), torch.randint(0, 100, (3,)))",
    "torch.empty(5).uniform_(-1, 1)", "torch.empty(5).normal_(2, 3)",
    "torch.empty(6).random_(0, 10)", "torch.empty(4).bernoulli_(0.5)",
    "torch.randn(3, 4, dtype=torch.float16)",
])
TENSOR_API += block("torch.manual_seed(7)", ["torch.rand(3)", "torch.randn(3)"])
TENSOR_API += block("torch.manual_seed(0); torch.rand(5)", ["torch.rand(2)"])

# ── torch.tensor and dtype inference ──
TENSOR_API += block("", [
    "torch.tensor([1, 2, 3])", "torch.tensor([1.0, 2.0, 3.0])", "torch.tensor([True, False])",
    "torch.tensor([1, 2.5])", "torch.tensor([True, 2])", "torch.tensor([True, 2.5])",
    "torch.tensor([[1, 2], [3, 4]])", "torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)",
    "torch.tensor(3.5)", "torch.tensor(7)", "torch.tensor(True)", "torch.tensor([])",
    "torch.tensor([[]])", "torch.tensor([1, 2], dtype=torch.float64)",
    "torch.tensor([1.5, -2.5], dtype=torch.int32)", ("torch.tensor([[1, 2], [3]])", VE),
    ("torch.tensor('abc')", TE), "torch.tensor(np.array([1, 2, 3], dtype=np.int32))",
    "torch.tensor(np.array([1.5, 2.5]))", "torch.from_numpy(np.arange(6).reshape(2, 3))",
    ("torch.tensor(2 ** 63)", RE), "torch.tensor([1, 2 ** 40])", "torch.tensor(1e40)",
    "torch.tensor([1, 2], requires_grad=False)", "torch.tensor((1, 2, 3))",
    "torch.tensor([torch.tensor(1.5), 2])", "torch.tensor(torch.tensor([1, 2]))",
    "torch.as_tensor([1, 2, 3], dtype=torch.float32)", "torch.tensor([[1.5]]).dtype",
    ("torch.tensor([1, 'a'])", TE), "torch.tensor(np.float64(2.5))",
])
TENSOR_API += block("a = np.zeros(3); t = torch.from_numpy(a); a[0] = 5", ["t"])
TENSOR_API += block("t = torch.tensor([1, 2, 3])", ["t.numpy()", "t.numpy()[1]",
                                                     "t.float().numpy()"])

# ── dtypes ──
TENSOR_API += block("t = torch.tensor([1, 2, 3]); f = torch.tensor([1., 2.])", [
    "torch.float32.is_floating_point", "torch.int64.is_floating_point",
    "torch.bool.is_floating_point", "torch.float16.is_floating_point", "torch.float32.is_signed",
    "torch.uint8.is_signed", "torch.float == torch.float32", "torch.long is torch.int64",
    "(torch.double, torch.half, torch.int, torch.short, torch.float, torch.long)",
    "torch.get_default_dtype()", "str(torch.float32)", "repr(torch.int64)", "t.dtype", "f.dtype",
    "t.is_floating_point()", "f.is_floating_point()", "t.element_size()", "f.element_size()",
    "torch.zeros(2, dtype=torch.bool).element_size()", "f.half().element_size()",
    "f.double().element_size()", "torch.finfo(torch.float32).eps", "torch.iinfo(torch.int8).max",
    "torch.promote_types(torch.int32, torch.float32)", "torch.result_type(t, 2.5)",
    "torch.can_cast(torch.float32, torch.int32)", "t.float()", "t.double()", "f.long()",
    "f.int()", "t.bool()", "f.half()", "t.to(torch.float64)", "t.to(dtype=torch.int32)",
    "t.type()", "f.type(torch.float64)", "t.to(torch.int64) is t", "t.clone() is t", "t.to('cpu')",
    "(t.device.type, str(t.device))", "t.is_cuda",
])
TENSOR_API.append(C("(torch.tensor([1.5]).dtype, torch.get_default_dtype())",
                    "torch.set_default_dtype(torch.float64)"))

# ── shape, size, stride ──
TENSOR_API += block("t = torch.zeros(3, 4)", [
    "t.shape", "t.size()", "t.size(1)", "t.size(-1)", ("t.size(2)", IE), "t.stride()",
    "t.stride(0)", "t.stride(-1)", "t.dim()", "t.ndim", "t.numel()", "t.nelement()", "len(t)",
    "t.T.shape", "t.mT.shape", "t.t().shape", "t.T.stride()", "repr(t.shape)", "str(t.shape)",
    "t.shape == (3, 4)", "t.shape == [3, 4]", "t.shape == torch.Size([3, 4])", "t.shape[1]",
    "t.shape[-1]", "t.shape.numel()", "isinstance(t.shape, tuple)", "t.shape[1:]",
    "t.shape + (5,)", "(5,) + t.shape", "list(t.shape)", "tuple(t.shape)",
    "type(t.shape).__name__", "len(t.shape)", ("t.shape[5]", IE), "torch.Size([2, 3])",
    "torch.Size([])", "repr(torch.Size([]))", "torch.zeros(2, 3, 4).T.shape",
    ("torch.zeros(2, 3, 4).t()", RE), "torch.zeros(2, 3, 4).mT.shape",
    ("len(torch.tensor(5))", TE), "torch.tensor(5).shape", "torch.tensor(5).dim()",
    "t.storage_offset()", "t.is_contiguous()", "t.T.is_contiguous()",
])

# ── arithmetic dunders ──
ARITH = ("a = torch.tensor([[1., -2.], [3.5, 4.]]); b = torch.tensor([[2., 3.], [-1., 0.5]]); "
         "i = torch.tensor([7, -7, 5, -5]); j = torch.tensor([2, 2, -3, -3]); "
         "p = torch.tensor([True, False, True]); q = torch.tensor([True, True, False])")
TENSOR_API += block(ARITH, [
    "a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "a ** b.abs()", "a @ b", "-a",
    "abs(a)", "+a", "a + 1", "a - 1", "a * 2", "a / 2", "a // 2", "a % 2", "a ** 2",
    "1 + a", "2 - a", "2 * a", "2 / a", "10 // a", "10 % a", "2 ** a", "2.5 ** a",
    "i + j", "i - j", "i * j", "i / j", "i // j", "i % j", "i ** 2", "2 ** i", "-i", "abs(i)",
    ("i ** -1", RE), "i.float() ** -1", "i / 2", "i // 2", "i % 3", "~i", "~p", "p & q",
    "p | q", "p ^ q", "i & 6", "i | 1", "i ^ j", "i << 1", "i >> 1", ("a & b", RE), ("~a", TE),
    "-p.int()", ("-p", RE), "a @ torch.tensor([1., 2.])", "torch.tensor([1., 2.]) @ torch.tensor([3., 4.])",
    ("a @ torch.ones(3, 2)", RE), "a + torch.tensor([10., 20.])",
    "a + torch.tensor([[10.], [20.]])", ("a + torch.ones(3)", RE), "a / 0", "-a / 0",
    "torch.tensor([0.]) / 0", ("i // 0", RE), "i / 0", "True + p", "p + p", "p * 3",
])

# in place
TENSOR_API += block("t = torch.tensor([1., 2., 3.])", [
    {"setup": "u = t; u += 1", "expr": "(u is t, t)"},
    {"setup": "u = t; u -= 1", "expr": "(u is t, t)"},
    {"setup": "u = t; u *= 2", "expr": "(u is t, t)"},
    {"setup": "u = t; u /= 2", "expr": "(u is t, t)"},
    {"setup": "u = t; u **= 2", "expr": "(u is t, t)"},
    {"setup": "u = t; u += torch.tensor([1, 1, 1])", "expr": "(u is t, t)"},
    {"setup": "v = t[1:]; v += 10", "expr": "t"},
    {"setup": "u = t + 0; u += 1", "expr": "(u is t, t)"},
    {"setup": "t.add_(torch.ones(3)).mul_(2)", "expr": "t"},
    {"setup": "t += torch.ones(2, 3)", "expr": "t", "raises": RE},
])
TENSOR_API += block("i = torch.tensor([1, 2, 3])", [
    {"setup": "i += 1.5", "expr": "i", "raises": RE},
    {"setup": "i /= 2", "expr": "i", "raises": RE},
    {"setup": "i *= 2", "expr": "i"},
    {"setup": "i //= 2", "expr": "i"},
    {"setup": "i += torch.tensor(True)", "expr": "i"},
])

# comparisons
TENSOR_API += block("a = torch.tensor([1., 2., 3.]); b = torch.tensor([3., 2., 1.])", [
    "a == b", "a != b", "a < b", "a <= b", "a > b", "a >= b", "a == 2", "a != 2", "a < 2",
    "2 < a", "2 >= a", "a > torch.tensor([[1.], [2.]])", "torch.tensor([1, 2, 3]) < 2.5",
    "a == None", "a != None", "torch.equal(a, a.clone())", "(a == a.clone()).all()",
    "a == torch.tensor(float('nan'))", "torch.tensor([1, 2]) == torch.tensor([1., 2.5])",
])

# type promotion
TENSOR_API += block("", [
    "(torch.tensor([1, 2]) + 2.5).dtype", "torch.tensor([1, 2]) + 2.5",
    "(torch.tensor([1], dtype=torch.int32) + torch.tensor([1])).dtype",
    "(torch.tensor([1], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)).dtype",
    "torch.tensor([True]) + torch.tensor([True])",
    "(torch.tensor([1.], dtype=torch.float16) + torch.tensor([1.])).dtype",
    "(torch.tensor([1, 2]) * True).dtype", "torch.tensor([True, False]) + 1",
    "(torch.tensor([1.]) + torch.tensor([1.], dtype=torch.float64)).dtype",
    "(torch.tensor(1., dtype=torch.float64) + torch.tensor([1.])).dtype",
    "(torch.tensor(1) + torch.tensor([1], dtype=torch.int8)).dtype",
    "(torch.tensor([1]) + torch.tensor(1.5)).dtype",
    "(torch.tensor([1], dtype=torch.int32) + 2 ** 40)",
    "torch.tensor([1, 2], dtype=torch.uint8) - 3", "torch.tensor([100], dtype=torch.int8) + 100",
    "(torch.tensor([1.], dtype=torch.float16) * 2.5).dtype",
    "(torch.tensor([1], dtype=torch.int16) / 2).dtype",
    "(torch.tensor([1], dtype=torch.uint8) * -1)",
    "(torch.tensor([1.], dtype=torch.bfloat16) + torch.tensor([1.], dtype=torch.float16)).dtype",
    "torch.tensor([3]) ** 2.0", "torch.tensor([3]) ** torch.tensor([2.])",
    "torch.tensor([1], dtype=torch.int32) // torch.tensor([2], dtype=torch.int64)",
    "torch.tensor([True]) & torch.tensor([3])",
])

# Python scalars from tensors
TENSOR_API += block("", [
    "bool(torch.tensor([0]))", "bool(torch.tensor(2.5))", "float(torch.tensor([3]))",
    "int(torch.tensor(3.9))", "int(torch.tensor(-3.9))", ("bool(torch.tensor([1, 2]))", RE),
    ("float(torch.tensor([1., 2.]))", VE), ("int(torch.tensor([1, 2]))", VE),
    ("bool(torch.tensor([]))", RE), "torch.tensor(2.5).item()", "torch.tensor([7]).item()",
    "torch.tensor(True).item()", "torch.tensor([[1.5]]).item()", ("torch.tensor([1, 2]).item()", VE),
    "torch.tensor(3).tolist()", "torch.tensor(3.5).tolist()", "torch.tensor([[1, 2], [3, 4]]).tolist()",
    "torch.tensor([True, False]).tolist()", "torch.zeros(2, 0).tolist()",
    "[10, 20, 30][torch.tensor(1)]", ("[10, 20, 30][torch.tensor(1.)]", TE),
    "list(torch.arange(6).reshape(3, 2))", "[r.sum().item() for r in torch.arange(6).reshape(3, 2)]",
    "list(torch.arange(3))", ("list(torch.tensor(5))", TE), "float(torch.tensor(float('nan')))",
    "torch.tensor([1.5]).item() + 1", "complex(torch.tensor(2.)).real",
    "round(torch.tensor(2.7).item())", "abs(torch.tensor(-2)).item()",
])

# repr / str
TENSOR_API += block("", [
    "repr(torch.tensor([1, 2, 3]))", "repr(torch.tensor([1., 2., 3.]))",
    "repr(torch.tensor([1.5, 2.25]))", "repr(torch.tensor([1e-8, 1.]))",
    "repr(torch.tensor([1e10, 1.]))", "repr(torch.tensor([123456789.]))",
    "repr(torch.tensor([0.1, 0.2]))", "repr(torch.tensor([1 / 3]))", "repr(torch.randn(3, 4))",
    "repr(torch.arange(2000.).reshape(40, 50))",
    "repr(torch.tensor([True, False]))", "repr(torch.tensor([1., 2.], dtype=torch.float64))",
    "repr(torch.tensor([1, 2], dtype=torch.int32))", "repr(torch.tensor([1.5, 2.], dtype=torch.float16))",
    "repr(torch.tensor([1., 2.], requires_grad=True))",
    "repr(torch.tensor([1., 2.], requires_grad=True) + 1)", "repr(torch.tensor(3.5))",
    "repr(torch.tensor(7))", "repr(torch.tensor([]))", "repr(torch.zeros(0, 3))",
    "repr(torch.zeros(2, 0))", "repr(torch.tensor([float('nan'), float('inf'), -float('inf'), 1.]))",
    "repr(torch.tensor([-1., 2.]))", "repr(torch.zeros(2, 3, 4))", "repr(torch.tensor([1e-5, 1e5]))",
    "repr(torch.tensor([1e-4, 1.]))", "repr(torch.tensor([100., 1000.]))",
    "repr(torch.tensor([2 ** 40, -1]))", "repr(torch.tensor([1, 2], dtype=torch.uint8))",
    "repr(torch.tensor([1, 2], dtype=torch.int8))", "repr(torch.tensor([1., 2.5], dtype=torch.bfloat16))",
    "str(torch.tensor([1, 2]))", "str(torch.tensor([[1.5, 2.], [3., 4.]]))",
    "repr(torch.tensor(float('nan')))", "repr(torch.tensor([0.]))", "repr(torch.tensor([-0.]))",
    "repr(torch.tensor([1, -2, 300]))", "repr(torch.arange(12.).reshape(3, 4))",
    "repr(torch.tensor(2., requires_grad=True))",
    "repr(torch.tensor([2.], dtype=torch.float64, requires_grad=True))", "repr(torch.arange(30.))",
    "repr(torch.arange(1000))", "repr(torch.arange(1001))", "repr(torch.tensor([1e-10]))",
    "repr(torch.tensor([12345.678, 0.001]))", "repr(torch.tensor([1., 2.]) * 1e8)",
    "repr(torch.tensor([0.5, 1e8]))", "repr(torch.tensor(1e-8))", "repr(torch.tensor([1., 2.]).T)",
    "repr(torch.tensor([1., 2.], requires_grad=True).sum())", "repr(torch.tensor(1e10))",
    "repr(torch.zeros(1, 2, 0))", "repr(torch.ones(2, dtype=torch.float64) / 3)",
])

# reductions
TENSOR_API += block("a = torch.randn(3, 4)", [
    "a.sum()", "a.sum(dim=0)", "a.sum(dim=1, keepdim=True)", "a.sum((0, 1))", "a.sum(dim=(0, 1))",
    "a.sum(-1)", "a.mean()", "a.mean(dim=-1)", "a.mean(dim=(0, 1))", "a.std()", "a.std(dim=1)",
    "a.var()", "a.var(dim=0, unbiased=False)", "a.max()", "a.max(dim=1)", "a.max(dim=1).values",
    "a.max(dim=1).indices", "a.max(1, keepdim=True)", "a.argmax(dim=1)", "a.argmax()", "a.min()",
    "a.min(dim=0)", "torch.max(a, torch.zeros(3, 4))", "a.amax(dim=0)", "a.norm(p=2)",
    "a.norm(p=2, dim=1)", "a.norm()", "a.prod()", "a.prod(dim=1)", "a.cumsum(dim=0)",
    "(a > 0).all()", "(a > 0).any()", "(a > -5).all(dim=1)", "a.logsumexp(dim=1)",
    "torch.sum(a)", "torch.mean(a, 0)", "a.sum(dtype=torch.float64)", ("a.sum(dim=5)", IE),
    ("a.mean(dim=2)", IE), ("torch.tensor([1, 2]).mean()", RE), "type(a.max(dim=1)).__name__",
    "torch.arange(6).sum()", "torch.tensor([True, True, False]).sum()",
    "torch.tensor([1, 2], dtype=torch.int32).sum().dtype", "torch.zeros(0).sum()",
    ("torch.zeros(0).max()", RE), "torch.zeros(0).mean()", "torch.arange(6.).reshape(2, 3).cumprod(1)",
    "a.sum(dim=1, keepdim=True).shape", "torch.arange(6).reshape(2, 3).max(dim=0)",
])

# elementwise functions
TENSOR_API += block("a = torch.randn(3, 4); t = torch.arange(20).reshape(4, 5)", [
    "torch.sqrt(a.abs())", "torch.exp(a)", "torch.log(a.abs())", "torch.log(torch.tensor([-1., 0.]))",
    "torch.clamp(a, min=-1, max=1)", "a.clamp(min=0)", "a.clamp(max=0)", "torch.relu(a)",
    "torch.sigmoid(a)", "torch.tanh(a)", "torch.where(t > 10, t, torch.zeros_like(t))",
    "torch.where(a > 0, a, 0.)", "torch.maximum(a, torch.zeros(1))", "torch.minimum(a, a.flip(0))",
    "torch.pow(a, 2)", "torch.pow(2, t)", "a.abs()", "a.neg()", "torch.sin(a)", "torch.cos(a)",
    "a.floor()", "a.ceil()", "a.round()", "a.trunc()", "a.sign()", "a.reciprocal()",
    "a.abs().rsqrt()", "a.abs().log1p()", "a.expm1()", "torch.sqrt(t)", "torch.exp(t[0])",
    "torch.tensor([0.5, 1.5, 2.5, -0.5]).round()", "torch.clamp(t, 3, 8)", "a.sqrt()",
    "torch.where(t > 10)",
])

# shape ops
TENSOR_API += block("t = torch.arange(12); m = torch.arange(24).reshape(2, 3, 4)", [
    "t.view(2, 2, 3)", "t.view(-1)", "t.view(2, -1)", ("t.view(-1, -1)", RE), ("t.view(5, 5)", RE),
    "t.reshape(6, 2)", "m.reshape(6, 4)", "m.permute(2, 0, 1)", ("m.permute(0, 1)", RE),
    "torch.zeros(1, 3, 1, 4).squeeze().shape", "torch.zeros(1, 3, 1, 4).squeeze(0).shape",
    "torch.zeros(1, 3, 1, 4).squeeze(1).shape", "m.unsqueeze(-1).shape", "m.unsqueeze(0).shape",
    ("m.unsqueeze(4)", IE), "m.flatten()", "m.flatten(start_dim=1)", "m.flatten(0, 1)",
    "torch.cat([m, m], dim=1)", "torch.cat([m, m])", "torch.cat((t, t[:2]))",
    ("torch.cat([m, t])", RE), ("torch.cat([])", RE), "torch.stack([t, t], dim=0)",
    "torch.stack([t, t], dim=-1)", ("torch.stack([t, t[:3]])", RE),
    "torch.arange(3).reshape(1, 3).expand(4, 3)", "torch.arange(3).reshape(1, 3).expand(4, -1)",
    ("torch.arange(3).reshape(1, 3).expand(2, 2)", RE),
    "torch.arange(3).reshape(1, 3).expand(4, 3).stride()",
    "torch.arange(3).reshape(1, 3).repeat(4, 2)", "t.split(5)", "m.split([1, 2], dim=1)",
    "t.chunk(5)", "m.chunk(3, dim=2)", "m.transpose(0, 1)", "m.transpose(0, 2).contiguous().stride()",
    "m.transpose(0, 2).stride()", "m.narrow(2, 1, 2)", "m.unbind(1)", "t.flip(0)",
    ("m.transpose(0, 3)", IE), ("t.view('x')", TE), "m.view(4, 6).stride()",
    ("m.transpose(0, 1).view(-1)", RE), "m.transpose(0, 1).reshape(-1)", "m.swapaxes(0, 1).shape",
    "t.view(3, 4).t().contiguous().is_contiguous()", "m.movedim(0, -1).shape",
    "m.expand(2, 2, 3, 4).shape", "t.view(3, 4)[None].expand(2, 3, 4).sum(0)",
])

# matmul family, gather
TENSOR_API += block("x = torch.randn(3, 4); y = torch.randn(4, 5); bx = torch.randn(2, 3, 4); "
                    "by = torch.randn(2, 4, 5)", [
    "x @ y", "torch.mm(x, y)", "torch.matmul(x, y)", "torch.bmm(bx, by)", "bx @ by", "bx @ y",
    "torch.einsum('ij,jk->ik', x, y)", "torch.einsum('bij,bjk->bik', bx, by)",
    "torch.einsum('ij->i', x)", "torch.einsum('ii->', torch.eye(4))", "torch.einsum('ij->ji', x)",
    "torch.einsum('i,i->', x[0], x[1])", "x @ y[:, 0]", ("x @ x", RE), ("torch.mm(x, bx)", RE),
    ("torch.bmm(x, y)", RE), "torch.matmul(x[0], y)", "x.T @ x", "torch.dot(x[0], x[1])",
])
TENSOR_API += block("src = torch.randn(3, 4); idx = torch.tensor([[0, 1, 2, 3], [3, 2, 1, 0], [0, 0, 0, 0]])", [
    "torch.gather(src, dim=1, index=idx)", "src.gather(0, torch.tensor([[2, 1, 0, 2]]))",
    ("torch.gather(src, 1, idx + 4)", RE),
    "torch.zeros(3, 4).scatter(1, idx[:2], src)", "src.index_select(0, torch.tensor([2, 0]))",
    "src.masked_fill(src > 0, 0.)",
])

# like-factories
TENSOR_API += block("x = torch.randn(3, 4, dtype=torch.float64)", [
    "torch.zeros_like(x)", "torch.ones_like(x)", "torch.full_like(x, 7)", "torch.empty_like(x).shape",
    "torch.empty_like(x).dtype", "torch.zeros_like(x, dtype=torch.int32)",
    "torch.ones_like(x, dtype=torch.bool)", "torch.full_like(x, 2.5, dtype=torch.float32)",
])

# the reference walkthrough (pytorch-first-tensor-to-distributed.txt, tensor section)
TENSOR_API += block("", [
    "torch.tensor([1, 2, 3])", "torch.tensor([1.0, 2.0, 3.0])",
    "torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)", "torch.zeros(3, 4)", "torch.ones(2, 3)",
    "torch.full((3, 3), 3.14)", "torch.empty(5, 5).shape", "torch.eye(4)", "torch.arange(0, 10, 2)",
    "torch.linspace(0, 1, steps=5)", "torch.rand(3, 4)", "torch.randn(3, 4)",
    "torch.randint(0, 10, (3, 4))",
])
TENSOR_API += block("x = torch.randn(3, 4, dtype=torch.float16); y = torch.zeros_like(x); "
                    "z = torch.empty_like(x)", ["x", "y", "(z.shape, z.dtype)"])
TENSOR_API += block("t = torch.tensor([[1, 2, 3], [4, 5, 6]])", [
    "t.shape", "t.stride()", "t.storage_offset()", "t[1, 2]", "t.T", "t.T.stride()",
    "t.T.is_contiguous()", "t.T.contiguous()", "t.T.contiguous().stride()",
    "t.T.contiguous().is_contiguous()", "t.T.reshape(-1)", "t.T[2, 1]",
])
TENSOR_API += block("t = torch.arange(12); a = t.view(3, 4); b = t.view(2, 2, 3)", [
    "(a.shape, a.stride())", "(b.shape, b.stride())", {"setup": "t[0] = 99", "expr": "(a[0, 0], b[0, 0, 0])"},
])
TENSOR_API += block("t = torch.randn(2, 3, 4)", [
    "t.view(6, 4)", "t.reshape(6, 4)", "t.view(-1)", "t.view(2, -1)", "t.permute(2, 0, 1)",
    "t.flatten()", "t.flatten(start_dim=1)",
])
TENSOR_API += block("m = torch.randn(3, 4)", ["m.T", "torch.equal(m.T, m.t())"])
TENSOR_API += block("x = torch.randn(1, 3, 1, 4)", ["x.squeeze()", "x.squeeze(0)", "x.squeeze(2)"])
TENSOR_API += block("y = torch.randn(3, 4)", [
    "y.unsqueeze(0)", "y.unsqueeze(-1)", "y[None, :]", "y[:, :, None]",
])
TENSOR_API += block("a = torch.randn(3, 4); b = torch.randn(3, 4)", [
    "torch.cat([a, b], dim=0)", "torch.stack([a, b], dim=0)", "torch.cat([a, b], dim=1)",
    "a + b", "a * b", "a / b", "a ** 2", "torch.sqrt(a.abs())", "torch.exp(a)",
    "torch.log(a.abs())", "torch.clamp(a, min=-1, max=1)", "torch.relu(a)",
    {"setup": "r = a.add_(b)", "expr": "(r is a, a)"}, {"setup": "a.mul_(2)", "expr": "a"},
    {"setup": "a.zero_()", "expr": "a"}, {"setup": "a.fill_(3.14)", "expr": "a"},
    "a.sum()", "a.sum(dim=0)", "a.sum(dim=1, keepdim=True)", "a.mean()", "a.mean(dim=-1)",
    "a.std()", "a.max()", "a.max(dim=1)", "a.argmax(dim=1)", "a.min()", "a.norm(p=2)",
    "a.norm(p=2, dim=1)",
])
TENSOR_API += block("t = torch.randn(1, 3)", [
    "t.expand(4, 3)", "t.expand(4, -1)", "t.repeat(4, 1)", "t.repeat(4, 2)",
])
TENSOR_API += block("x = torch.randn(3, 4); y = torch.randn(4, 5); bx = torch.randn(8, 3, 4); "
                    "by = torch.randn(8, 4, 5)", [
    "x @ y", "torch.mm(x, y)", "torch.matmul(x, y)", "torch.bmm(bx, by)", "bx @ by",
    "torch.einsum('ij,jk->ik', x, y)", "torch.einsum('bij,bjk->bik', bx, by)",
    "torch.einsum('ij->i', x)", "torch.einsum('ii->', torch.eye(4))",
])
TENSOR_API += block("t = torch.arange(20).reshape(4, 5)", [
    "t[0]", "t[1:3]", "t[:, 2]", "t[::2]", "t[:, -1]", "t[t > 10]", "t[t % 3 == 0]",
    "t[torch.tensor([0, 2, 3])]", "torch.where(t > 10, t, torch.zeros_like(t))",
])
TENSOR_API += block("src = torch.randn(3, 4); "
                    "idx = torch.tensor([[0, 1, 2, 3], [3, 2, 1, 0], [0, 0, 0, 0]])",
                    ["torch.gather(src, dim=1, index=idx)"])

# ══ autograd ═══════════════════════════════════════════════════════════════════════════════════
AUTOGRAD = []
XY = ("x = torch.tensor(2.0, requires_grad=True); y = torch.tensor(3.0, requires_grad=True); "
      "a = x * y; b = a + x; c = b ** 2")
_NEXT = "[(type(f).__name__ if f is not None else None, i) for f, i in {}.grad_fn.next_functions]"


def next_functions(var):
    """Names (and input numbers) of var.grad_fn.next_functions."""
    return {"expr": _NEXT.format(var), "label": "%s.grad_fn.next_functions" % var}


AUTOGRAD += block(XY, [
    {"setup": "c.backward()", "expr": "(x.grad, y.grad)"},
    "(type(a.grad_fn).__name__, type(b.grad_fn).__name__, type(c.grad_fn).__name__)",
    next_functions("a"), next_functions("b"), next_functions("c"),
    "(x.is_leaf, a.is_leaf, c.is_leaf, x.grad_fn is None)", "(a.requires_grad, c.requires_grad)",
    {"setup": "c.backward()", "expr": "c.backward()", "raises": RE},
    {"setup": "c.backward(retain_graph=True); c.backward()", "expr": "(x.grad, y.grad)"},
    {"setup": "c.backward()", "expr": "(a.grad, b.grad)"},
    {"setup": "b.retain_grad(); c.backward()", "expr": "(b.grad, a.grad, x.grad)"},
    "(x.grad, y.grad)", "c", "repr(c)", "c.item()",
    "torch.autograd.grad(c, x)", "torch.autograd.grad(c, [x, y])",
    {"setup": "c.backward(); x.grad.zero_()", "expr": "(x.grad, y.grad)"},
    {"setup": "c.backward(); x.grad = None", "expr": "(x.grad, y.grad)"},
])

RX = "x = torch.randn(3, requires_grad=True)"
NAME = "type({}.grad_fn).__name__"
AUTOGRAD += block(RX + "; w = torch.randn(3, 2, requires_grad=True); m = torch.randn(2, 3)", [
    NAME.format("(x * 2)"), NAME.format("(x + x)"), NAME.format("(x - 1)"),
    NAME.format("(x / 3)"), NAME.format("(-x)"), NAME.format("(x ** 2)"),
    NAME.format("(x ** x)"), NAME.format("(2 ** x)"), NAME.format("x.sum()"),
    NAME.format("x.sum(dim=0)"), NAME.format("x.mean()"), NAME.format("(m @ w)"),
    NAME.format("torch.mm(m, w)"), NAME.format("(x @ x)"), NAME.format("(x @ w)"),
    NAME.format("x.exp()"), NAME.format("x.log()"), NAME.format("x.relu()"),
    NAME.format("x.sigmoid()"), NAME.format("x.tanh()"), NAME.format("x[1:]"),
    NAME.format("x[0]"), NAME.format("x[[0, 2]]"), NAME.format("x.view(3, 1)"),
    NAME.format("x.reshape(1, 3)"), NAME.format("w.t()"), NAME.format("w.T"),
    NAME.format("x.clone()"), NAME.format("x.expand(2, 3)"), NAME.format("torch.cat([x, x])"),
    NAME.format("x.unsqueeze(0)"), NAME.format("w.transpose(0, 1)"), NAME.format("x.abs()"),
    NAME.format("torch.stack([x, x])"), NAME.format("x.max()"), NAME.format("x.float()"),
    NAME.format("x.double()"), NAME.format("w.permute(1, 0)"), NAME.format("x[None]"),
    NAME.format("x[x > 0]"), NAME.format("x.sqrt()"),
    next_functions("(x * 2)"), next_functions("(m @ w)"), next_functions("(x + x).sum()"),
    "x.detach().grad_fn is None", "(x.detach().is_leaf, (x * 2).detach().is_leaf)",
    "(torch.zeros(3).is_leaf, (torch.zeros(3) * 2).is_leaf)",
    "((x * 2).requires_grad, (torch.ones(3) * 2).requires_grad, (x + torch.ones(3)).requires_grad)",
    "x.grad is None",
])

AUTOGRAD += block(RX, [
    {"setup": "y = x * 2; y.retain_grad(); y.sum().backward()", "expr": "(x.grad, y.grad)"},
    {"setup": "y = x * 2; y.sum().backward()", "expr": "y.grad"},
    {"setup": "s = x.sum(); s.backward(); s.backward()", "expr": "x.grad"},
    {"setup": "y = (x * x).sum(); y.backward(retain_graph=True); y.backward()", "expr": "x.grad"},
    {"setup": "y = x * x; y.backward(gradient=torch.tensor([1., 0.1, 0.01]))", "expr": "x.grad"},
    {"setup": "y = x * x", "expr": "y.backward()", "raises": RE},
    {"setup": "y = (x * 2)[:1]; y.backward()", "expr": "x.grad"},
    {"setup": "y = torch.ones(3) * 2", "expr": "y.sum().backward()", "raises": RE},
    {"setup": "y = (x ** 2).sum()", "expr": "torch.autograd.grad(y, x)"},
    {"setup": "y = x * x", "expr": "torch.autograd.grad(y, x)", "raises": RE},
    {"setup": "y = x * x", "expr": "torch.autograd.grad(y, x, grad_outputs=torch.ones(3))"},
    {"setup": "y = (x ** 3).sum(); (g,) = torch.autograd.grad(y, x, create_graph=True)",
     "expr": "(g, g.requires_grad, torch.autograd.grad(g.sum(), x))"},
    {"setup": "y = (x ** 3).sum(); (g,) = torch.autograd.grad(y, x, create_graph=True); "
              "g.sum().backward()", "expr": "x.grad"},
    {"setup": "z = torch.randn(3, requires_grad=True); y = (x * 2).sum()",
     "expr": "torch.autograd.grad(y, [x, z])", "raises": RE},
    {"setup": "z = torch.randn(3, requires_grad=True); y = (x * 2).sum()",
     "expr": "torch.autograd.grad(y, [x, z], allow_unused=True)"},
    {"setup": "with torch.no_grad():\n    r = x * 2",
     "expr": "(r.requires_grad, r.grad_fn is None, r.is_leaf)"},
    {"setup": "with torch.no_grad():\n    e = torch.is_grad_enabled()", "expr": "(e, torch.is_grad_enabled())"},
    {"setup": "with torch.no_grad():\n    with torch.enable_grad():\n        r = x * 2",
     "expr": "(r.requires_grad, type(r.grad_fn).__name__)"},
    {"setup": "with torch.inference_mode():\n    r = x * 2\n    e = torch.is_inference_mode_enabled()",
     "expr": "(r.requires_grad, r.is_inference(), e, x.is_inference())"},
    {"setup": "with torch.inference_mode():\n    r = torch.ones(2)", "expr": "r.requires_grad_()",
     "raises": RE},
    {"setup": "with torch.set_grad_enabled(False):\n    r = x * 2", "expr": "(r.requires_grad, torch.is_grad_enabled())"},
    {"setup": "torch.set_grad_enabled(False); r = x * 2; torch.set_grad_enabled(True)",
     "expr": "(r.requires_grad, (x * 2).requires_grad)"},
    {"setup": "@torch.no_grad()\ndef f(v):\n    return v * 2\nr = f(x)", "expr": "r.requires_grad"},
    {"setup": "d = x.detach(); d[0] = 100", "expr": "(x, d.requires_grad)"},
    {"setup": "d = x.data; d[1] = -1", "expr": "(x, d.requires_grad)"},
    {"setup": "h = x.register_hook(lambda g: g * 2); (x * 3).sum().backward()", "expr": "x.grad"},
    {"setup": "h = x.register_hook(lambda g: g * 2); h.remove(); (x * 3).sum().backward()",
     "expr": "x.grad"},
    {"setup": "seen = []\ny = x * 2\ny.register_hook(lambda g: seen.append(g.clone()))\n"
              "(y * y).sum().backward()", "expr": "(seen, x.grad)"},
    {"setup": "(x * 3).sum().backward(); g = x.grad; x.grad.zero_()", "expr": "(g is x.grad, x.grad)"},
    {"setup": "(x * 3).sum().backward(); (x * 4).sum().backward()", "expr": "x.grad"},
    {"setup": "x.add_(1)", "expr": "x", "raises": RE},
    {"setup": "x[0] = 1", "expr": "x", "raises": RE},
    {"setup": "y = x.exp(); y.add_(1)", "expr": "y.sum().backward()", "raises": RE},
    {"setup": "y = x * 2; z = y * y; y.add_(1)", "expr": "z.sum().backward()", "raises": RE},
    {"setup": "y = x.sigmoid(); y.mul_(2)", "expr": "y.sum().backward()", "raises": RE},
    {"setup": "y = x * 2; y.add_(1); y.sum().backward()", "expr": "(x.grad, type(y.grad_fn).__name__)"},
    {"setup": "y = x * 1; y[0] = 0; y.sum().backward()", "expr": "(x.grad, type(y.grad_fn).__name__)"},
    {"setup": "with torch.no_grad():\n    x -= 0.5", "expr": "(x, x.requires_grad, x.is_leaf)"},
    {"setup": "y = x * 2", "expr": "y.requires_grad_(False)", "raises": RE},
    {"setup": "y = x * 2", "expr": "y.detach().requires_grad_().is_leaf"},
])

AUTOGRAD += block("", [
    {"setup": "t = torch.ones(2); r = t.requires_grad_()", "expr": "(r is t, t.requires_grad, t.is_leaf)"},
    {"setup": "t = torch.tensor([1, 2])", "expr": "t.requires_grad_()", "raises": RE},
    ("torch.tensor([1, 2], requires_grad=True)", RE),
    "torch.zeros(2, requires_grad=True)",
    "torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True) * 2",
    {"setup": "x = torch.tensor([0., 1.], requires_grad=True); x.sqrt().sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.tensor([-1., 0., 2.], requires_grad=True); x.abs().sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.tensor([-1., 0., 2.], requires_grad=True); x.relu().sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.tensor([1., 3., 3.], requires_grad=True); x.max().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True); "
              "(x ** 3).sum().backward()", "expr": "x.grad"},
    # custom autograd.Function
    {"setup": "class Square(torch.autograd.Function):\n"
              "    @staticmethod\n"
              "    def forward(ctx, x):\n"
              "        ctx.save_for_backward(x)\n"
              "        return x * x\n"
              "    @staticmethod\n"
              "    def backward(ctx, g):\n"
              "        x, = ctx.saved_tensors\n"
              "        return 2 * x * g\n"
              "x = torch.randn(3, requires_grad=True)\n"
              "y = Square.apply(x)\n"
              "y.sum().backward()",
     "expr": "(y, x.grad, type(y.grad_fn).__name__, y.requires_grad)"},
    {"setup": "seen = []\n"
              "class Mul(torch.autograd.Function):\n"
              "    @staticmethod\n"
              "    def forward(ctx, a, b):\n"
              "        ctx.save_for_backward(a, b)\n"
              "        return a * b\n"
              "    @staticmethod\n"
              "    def backward(ctx, g):\n"
              "        a, b = ctx.saved_tensors\n"
              "        seen.append(ctx.needs_input_grad)\n"
              "        return (g * b if ctx.needs_input_grad[0] else None,\n"
              "                g * a if ctx.needs_input_grad[1] else None)\n"
              "a = torch.randn(3, requires_grad=True)\n"
              "b = torch.randn(3)\n"
              "Mul.apply(a, b).sum().backward()",
     "expr": "(seen, a.grad, b.grad)"},
    {"setup": "class Bad(torch.autograd.Function):\n"
              "    @staticmethod\n"
              "    def forward(ctx, a, b):\n"
              "        return a + b\n"
              "    @staticmethod\n"
              "    def backward(ctx, g):\n"
              "        return g\n"
              "a = torch.randn(2, requires_grad=True)\n"
              "b = torch.randn(2, requires_grad=True)\n"
              "y = Bad.apply(a, b).sum()",
     "expr": "y.backward()", "raises": RE},
    {"setup": "class Double(torch.autograd.Function):\n"
              "    @staticmethod\n"
              "    def forward(ctx, x, k):\n"
              "        ctx.k = k\n"
              "        return x * k\n"
              "    @staticmethod\n"
              "    def backward(ctx, g):\n"
              "        return g * ctx.k, None\n"
              "x = torch.ones(2, requires_grad=True)\n"
              "y = Double.apply(x, 3.0)\n"
              "(y * y).sum().backward()",
     "expr": "(y, x.grad)"},
    # gradients of broadcasting and indexing
    {"setup": "a = torch.randn(3, 1, requires_grad=True); b = torch.randn(4, requires_grad=True); "
              "(a + b).sum().backward()", "expr": "(a.grad, b.grad)"},
    {"setup": "a = torch.randn(3, 1, requires_grad=True); b = torch.randn(4, requires_grad=True); "
              "(a * b).sum().backward()", "expr": "(a.grad, b.grad)"},
    {"setup": "a = torch.randn(2, 3, requires_grad=True); b = torch.randn(3, requires_grad=True); "
              "(a / b).mean().backward()", "expr": "(a.grad, b.grad)"},
    {"setup": "t = torch.arange(5.).requires_grad_(); t[1:3].sum().backward()", "expr": "t.grad"},
    {"setup": "t = torch.arange(5.).requires_grad_(); t[[0, 0, 2]].sum().backward()", "expr": "t.grad"},
    {"setup": "t = torch.arange(6.).reshape(2, 3).requires_grad_(); t[t > 2].sum().backward()",
     "expr": "t.grad"},
    {"setup": "t = torch.arange(6.).reshape(2, 3).requires_grad_(); (t[:, 1].sum() * t[1]).sum().backward()",
     "expr": "t.grad"},
    # gradients of common ops on seeded random inputs
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.mean().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.exp().sum().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.abs().log().sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); w = torch.randn(4, 2, requires_grad=True); "
              "(x @ w).sum().backward()", "expr": "(x.grad, w.grad)"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.relu().sum().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.sigmoid().sum().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.tanh().pow(2).mean().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.sum(dim=1).pow(2).sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.logsumexp(dim=1).sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.view(-1)[::2].sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 4, requires_grad=True); x.t().contiguous().view(-1)[:5].sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(2, 3, requires_grad=True); torch.cat([x, x * 2], dim=1).sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(2, 3, requires_grad=True); x.expand(4, 2, 3).sum().backward()",
     "expr": "x.grad"},
    {"setup": "x = torch.randn(4, requires_grad=True); y = torch.randn(4, requires_grad=True); "
              "torch.autograd.backward([x.sum(), (y * 2).sum()], [torch.tensor(1.), torch.tensor(3.)])",
     "expr": "(x.grad, y.grad)"},
    {"setup": "x = torch.randn(3, requires_grad=True); y = x.clone(); y.sum().backward()",
     "expr": "(x.grad, y.is_leaf, y.grad_fn is not None)"},
    {"setup": "x = torch.randn(3, requires_grad=True); y = torch.where(x > 0, x, x * 0.1); "
              "y.sum().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, 2, requires_grad=True); x.norm().backward()", "expr": "x.grad"},
    {"setup": "x = torch.randn(3, requires_grad=True); y = torch.randn(3).requires_grad_(); "
              "torch.maximum(x, y).sum().backward()", "expr": "(x.grad, y.grad)"},
])

# Random fills without bounds and with to=None (PyTorch's streams), NumPy scalars in factories.
TENSOR_API += block("", [
    "torch.empty((), dtype=torch.int64).random_()", "torch.empty(4, dtype=torch.int32).random_()",
    "torch.empty(3).random_()", "torch.empty(4, dtype=torch.int64).random_(7)",
    "torch.empty(4, dtype=torch.int64).random_(to=7)", "torch.empty(4, dtype=torch.int64).random_(2, None)",
    "torch.empty(4, dtype=torch.int32).random_(2, None)", "torch.empty(4, dtype=torch.int64).random_(2, 5)",
    "torch.empty(2, dtype=torch.int64).random_(-2**63, None)",
    ("torch.empty(2, dtype=torch.int32).random_(-2**63, None)", "RuntimeError"),
    "torch.as_tensor(np.float64(2.5))", "torch.tensor([np.float16(1), np.float16(2)])",
    "torch.tensor([np.int32(1), np.int32(2)])", "torch.tensor(np.int8(3))",
])

# exponential_ and multinomial: PyTorch's streams (the Gumbel trick without replacement or for one
# sample, one uniform per sample with replacement), every dtype, rows, strided input, the errors.
TENSOR_API += block("torch.manual_seed(3)", [
    "torch.empty(5).exponential_()", "torch.empty(4, dtype=torch.float64).exponential_(2.5)",
    "torch.empty(3, 2).t().exponential_(0.5)", "torch.empty(6, dtype=torch.float16).exponential_()",
    "torch.empty(6, dtype=torch.bfloat16).exponential_()",
    ("torch.empty(3).exponential_(-1)", "RuntimeError"),
    "torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4]), 1)",
    "torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4]), 3)",
    "torch.multinomial(torch.tensor([1., 2., 0., 4.]), 10, replacement=True)",
    "torch.multinomial(torch.rand(3, 5), 4)", "torch.multinomial(torch.rand(3, 5), 8, True)",
    "torch.rand(3, 5, dtype=torch.float64).multinomial(2)",
    "torch.rand(3, 5, dtype=torch.float64).multinomial(6, replacement=True)",
    "torch.rand(5, 3).t().multinomial(2)", "torch.rand(5, 3).t().multinomial(4, True)",
    "torch.rand(2, 6, dtype=torch.bfloat16).multinomial(5, True)",
    "torch.rand(2, 6, dtype=torch.bfloat16).multinomial(3)",
    "(torch.multinomial(torch.ones(4), 2), torch.rand(2))",
    "torch.multinomial(torch.rand(2, 4), 3, generator=torch.Generator().manual_seed(5))",
    ("torch.multinomial(torch.tensor([1., 2.]), 3)", "RuntimeError"),
    ("torch.multinomial(torch.tensor([[1., 2.]]), 0)", "RuntimeError"),
    ("torch.multinomial(torch.tensor([1, 2]), 1)", "RuntimeError"),
    ("torch.multinomial(torch.zeros(2), 1)", "RuntimeError"),
    ("torch.multinomial(torch.tensor([1., -1.]), 1)", "RuntimeError"),
    ("torch.multinomial(torch.zeros(2, 2, 2), 1)", "RuntimeError"),
    ("torch.multinomial(torch.tensor([0., 0.]), 2, True)", "RuntimeError"),
    ("torch.multinomial(torch.tensor([1., float('nan')]), 2, True)", "RuntimeError"),
])

GROUPS = {
    "indexing": INDEXING,
    "tensor_api": TENSOR_API,
    "autograd": AUTOGRAD,
}
