"""Shared helper of the Python golden tests: run one case against a torch-like module, encode the
result as plain JSON data, and compare two encodings.

The same code runs on both sides:
  * python/tests/golden/generate.py runs every case under the reference PyTorch 1.13 (Debian's
    /usr/bin/python3) and writes the encodings to python/tests/golden/<group>.json;
  * python/tests/test_golden.py runs the same case strings with `torch` bound to ember and compares.

A case is (setup, expr): `setup` is Python statements (may be ""), run with exec(); `expr` is one
expression, run with eval(). Both see only the names `torch` (the module under test) and `np`
(numpy). torch.manual_seed(0) is called before each case.

Encoding of a result (JSON-ready, no NaN literals):
  Tensor        {"kind": "tensor", "dtype": "float32", "shape": [3, 4], "values": [...row-major],
                 "requires_grad": false} (+ "stride", "storage_offset" when strides=True)
                 float values nan/inf/-inf are the strings "nan", "inf", "-inf"
  torch.Size    {"kind": "size", "items": [3, 4]}
  tuple / list  {"kind": "tuple" | "list", "items": [...]}  (named tuples such as
                 torch.return_types.max are tuples)
  dict          {"kind": "dict", "items": [[key, value], ...]}
  dtype         {"kind": "dtype", "name": "float32"}
  int/float/bool/str/None  {"kind": "int" | "float" | "bool" | "str" | "none", "value": ...}
  numpy array   {"kind": "ndarray", "dtype": "int64", "shape": [...], "values": [...]}
  numpy scalar  {"kind": "npscalar", "dtype": "float64", "value": ...}
  exception     {"kind": "error", "type": "IndexError", "message": "..."}  (only the class
                 NAME is compared; the message is kept for people reading a failure)
Anything else encodes as {"kind": "unsupported", "type": <class name>}; the generator refuses it.

Comparison: kinds, dtypes, shapes, strides and storage offsets exactly; ints and bools exactly
(a bool never equals an int); floats within a tolerance chosen by dtype unless the case gives
rtol/atol: float32 (and plain Python floats) rtol=1.3e-6, atol=1e-6; float64 rtol=atol=1e-12;
float16 rtol=1e-3, atol=1e-5; bfloat16 rtol=1.6e-2, atol=1e-5. nan matches nan, inf matches inf.
"""
import math
import os
import re
import warnings

import numpy

# (rtol, atol) by dtype name; "float" is a plain Python float.
TOLERANCES = {
    "float32": (1.3e-6, 1e-6),
    "float": (1.3e-6, 1e-6),
    "float64": (1e-12, 1e-12),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
}
FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}
MESSAGE_LIMIT = 300


def load_module(name, path):
    """The Python file at `path` as module `name` (a generator's cases.py, this file)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case_id(index, case, limit=None):
    """'017: t[1:3, None]': the zero-padded index and a short text of the case (stable, unique),
    cut to `limit` characters."""
    text = case.get("label") or case["expr"]
    if limit is not None:
        text = re.sub(r"\s+", " ", text).strip().replace("::", ": :")
        if len(text) > limit:
            text = text[:limit - 3] + "..."
    return "%03d: %s" % (index, text)


def store(path, text, check, problems, differ):
    """A generator's output for one file: with --check, note `path` in `differ` when the committed
    file is not `text`; otherwise write it, unless the generator found problems."""
    if check:
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            differ.append(path)
    elif not problems:
        with open(path, "w") as f:
            f.write(text)


def finish(problems, differ):
    """Ends a generator: its problems, then the stale files (--check), each an exit status."""
    import sys

    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit("%d problem(s); nothing written for the groups that have them" % len(problems))
    if differ:
        sys.exit("out of date: %s" % ", ".join(differ))


def dtype_name(dtype):
    """'torch.float32' -> 'float32' (works for any module whose dtypes print as <prefix>.<name>)."""
    return str(dtype).rsplit(".", 1)[-1]


def _enc_number(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, int):
        return v
    raise TypeError("not a number: %r" % (v,))


def _flatten(values):
    """Flattens nested lists (what tolist() gives) row-major."""
    if isinstance(values, list):
        out = []
        for v in values:
            out.extend(_flatten(v))
        return out
    return [values]


def encode(obj, torch_module, strides=False):
    """Encodes a case's result as JSON-ready data (see the module docstring)."""
    tensor_cls = getattr(torch_module, "Tensor", None)
    size_cls = getattr(torch_module, "Size", None)
    dtype_cls = getattr(torch_module, "dtype", None)

    if tensor_cls is not None and isinstance(obj, tensor_cls):
        flat = obj.detach()
        if hasattr(flat, "cpu"):
            flat = flat.cpu()
        values = flat.reshape(-1).tolist()
        if not isinstance(values, list):  # defensive: a 0-d result of reshape(-1) is a bug
            values = [values]
        enc = {
            "kind": "tensor",
            "dtype": dtype_name(obj.dtype),
            "shape": [int(s) for s in obj.shape],
            "values": [_enc_number(v) for v in values],
            "requires_grad": bool(obj.requires_grad),
        }
        if strides:
            enc["stride"] = [int(s) for s in obj.stride()]
            enc["storage_offset"] = int(obj.storage_offset())
        return enc
    if size_cls is not None and isinstance(obj, size_cls):
        return {"kind": "size", "items": [int(s) for s in obj]}
    if dtype_cls is not None and isinstance(obj, dtype_cls):
        return {"kind": "dtype", "name": dtype_name(obj)}
    if obj is None:
        return {"kind": "none", "value": None}
    if isinstance(obj, bool):
        return {"kind": "bool", "value": obj}
    if isinstance(obj, int):
        return {"kind": "int", "value": int(obj)}
    if isinstance(obj, float):
        return {"kind": "float", "value": _enc_number(float(obj))}
    if isinstance(obj, str):
        return {"kind": "str", "value": obj}
    if isinstance(obj, tuple):
        return {"kind": "tuple", "items": [encode(o, torch_module, strides) for o in obj]}
    if isinstance(obj, list):
        return {"kind": "list", "items": [encode(o, torch_module, strides) for o in obj]}
    if isinstance(obj, dict):
        return {"kind": "dict",
                "items": [[encode(k, torch_module, strides), encode(v, torch_module, strides)]
                          for k, v in obj.items()]}
    if isinstance(obj, numpy.ndarray):
        return {"kind": "ndarray", "dtype": str(obj.dtype), "shape": list(obj.shape),
                "values": [_enc_number(v) for v in _flatten(obj.tolist())]}
    if isinstance(obj, numpy.generic):
        return {"kind": "npscalar", "dtype": str(obj.dtype), "value": _enc_number(obj.item())}
    return {"kind": "unsupported", "type": type(obj).__name__}


def encode_error(exc):
    msg = str(exc)
    if len(msg) > MESSAGE_LIMIT:
        msg = msg[:MESSAGE_LIMIT] + "..."
    return {"kind": "error", "type": type(exc).__name__, "message": msg}


def _save_state(torch_module):
    """Global state a case may change (grad mode, default dtype); restored after each case."""
    state = {}
    for name in ("is_grad_enabled", "get_default_dtype"):
        fn = getattr(torch_module, name, None)
        if fn is not None:
            try:
                state[name] = fn()
            except Exception:  # noqa: BLE001 - the module under test may be incomplete
                pass
    return state


def _restore_state(torch_module, state):
    for name, setter in (("is_grad_enabled", "set_grad_enabled"),
                         ("get_default_dtype", "set_default_dtype")):
        if name in state:
            try:
                getattr(torch_module, setter)(state[name])
            except Exception:  # noqa: BLE001
                pass


def run_case(torch_module, setup, expr, strides=False):
    """Runs one case with `torch` bound to torch_module and returns the encoded result.

    torch.manual_seed(0) runs first. An exception from the seed call, the setup or the expression
    is the case's result (encoded as an error). A failure while encoding a result (the module
    under test returned something that does not behave like a tensor) is returned as kind
    "encode_error".
    """
    ns = {"torch": torch_module, "np": numpy}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = _save_state(torch_module)
        try:
            try:
                torch_module.manual_seed(0)
                if setup:
                    exec(compile(setup, "<setup>", "exec"), ns)  # noqa: S102
                result = eval(compile(expr, "<expr>", "eval"), ns)  # noqa: S307
            except Exception as exc:  # noqa: BLE001 - every exception is a result
                return encode_error(exc)
            try:
                return encode(result, torch_module, strides)
            except Exception as exc:  # noqa: BLE001
                enc = encode_error(exc)
                enc["kind"] = "encode_error"
                return enc
        finally:
            _restore_state(torch_module, state)


# ── comparison ──────────────────────────────────────────────────────────────────────────────────
class Mismatch(AssertionError):
    pass


def _close(e, a, rtol, atol):
    if isinstance(e, str) or isinstance(a, str):  # "nan", "inf", "-inf"
        return e == a
    if isinstance(e, bool) or isinstance(a, bool):
        return e is a
    return abs(a - e) <= atol + rtol * abs(e)


def _exact(e, a):
    if isinstance(e, bool) or isinstance(a, bool):
        return isinstance(e, bool) and isinstance(a, bool) and e == a
    if isinstance(e, str) or isinstance(a, str):
        return e == a
    # ints; a float in an integer slot is a mismatch (tolist() of an int tensor gives ints)
    return type(e) is type(a) and e == a


def _values(e_vals, a_vals, dtype, rtol, atol, path):
    if len(e_vals) != len(a_vals):
        raise Mismatch("%s: %d values expected, got %d" % (path, len(e_vals), len(a_vals)))
    if dtype in FLOAT_DTYPES or dtype == "float":
        d_rtol, d_atol = TOLERANCES.get(dtype, TOLERANCES["float32"])
        rtol = d_rtol if rtol is None else rtol
        atol = d_atol if atol is None else atol
        for i, (e, a) in enumerate(zip(e_vals, a_vals)):
            if not _close(e, a, rtol, atol):
                raise Mismatch("%s: value [%d] expected %r, got %r (rtol=%g, atol=%g)"
                               % (path, i, e, a, rtol, atol))
    else:
        for i, (e, a) in enumerate(zip(e_vals, a_vals)):
            if not _exact(e, a):
                raise Mismatch("%s: value [%d] expected %r, got %r" % (path, i, e, a))


def _compare(e, a, rtol, atol, path):
    if not isinstance(a, dict) or "kind" not in a:
        raise Mismatch("%s: not an encoding: %r" % (path, a))
    if e["kind"] != a["kind"]:
        raise Mismatch("%s: kind %s expected, got %s" % (path, e["kind"], a["kind"]))
    kind = e["kind"]
    if kind == "tensor":
        for key in ("dtype", "shape", "requires_grad", "stride", "storage_offset"):
            if key in e and e[key] != a.get(key):
                raise Mismatch("%s: tensor %s %r expected, got %r"
                               % (path, key, e[key], a.get(key)))
        _values(e["values"], a["values"], e["dtype"], rtol, atol, path)
    elif kind == "ndarray":
        for key in ("dtype", "shape"):
            if e[key] != a[key]:
                raise Mismatch("%s: ndarray %s %r expected, got %r" % (path, key, e[key], a[key]))
        dt = e["dtype"] if e["dtype"] in FLOAT_DTYPES else "int"
        _values(e["values"], a["values"], dt, rtol, atol, path)
    elif kind == "npscalar":
        if e["dtype"] != a["dtype"]:
            raise Mismatch("%s: numpy dtype %s expected, got %s" % (path, e["dtype"], a["dtype"]))
        dt = e["dtype"] if e["dtype"] in FLOAT_DTYPES else "int"
        _values([e["value"]], [a["value"]], dt, rtol, atol, path)
    elif kind in ("tuple", "list", "size", "dict"):
        if len(e["items"]) != len(a["items"]):
            raise Mismatch("%s: %s of %d items expected, got %d"
                           % (path, kind, len(e["items"]), len(a["items"])))
        for i, (ei, ai) in enumerate(zip(e["items"], a["items"])):
            if kind == "size":
                if not _exact(ei, ai):
                    raise Mismatch("%s: size %r expected, got %r" % (path, e["items"], a["items"]))
            elif kind == "dict":
                _compare(ei[0], ai[0], rtol, atol, "%s{key %d}" % (path, i))
                _compare(ei[1], ai[1], rtol, atol, "%s{value %d}" % (path, i))
            else:
                _compare(ei, ai, rtol, atol, "%s[%d]" % (path, i))
    elif kind == "float":
        _values([e["value"]], [a["value"]], "float", rtol, atol, path)
    elif kind in ("int", "bool"):
        _values([e["value"]], [a["value"]], kind, rtol, atol, path)
    elif kind in ("str", "none"):
        if e["value"] != a["value"]:
            raise Mismatch("%s: %r expected, got %r" % (path, e["value"], a["value"]))
    elif kind == "dtype":
        if e["name"] != a["name"]:
            raise Mismatch("%s: dtype %s expected, got %s" % (path, e["name"], a["name"]))
    elif kind == "error":
        if e["type"] != a["type"]:
            raise Mismatch("%s: %s expected, got %s" % (path, e["type"], a["type"]))
    else:  # unsupported / encode_error: never equal
        raise Mismatch("%s: cannot compare kind %s" % (path, kind))


def matches(expected, actual, rtol=None, atol=None):
    """True when `actual` matches `expected` (same rules as assert_matches)."""
    try:
        _compare(expected, actual, rtol, atol, "result")
    except Mismatch:
        return False
    return True


def _short(enc, limit=2000):
    import json
    text = json.dumps(enc, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "...(%d chars)" % len(text)


def assert_matches(expected, actual, case_id, rtol=None, atol=None, setup=None, expr=None):
    """Raises AssertionError (with the case, the expected and the actual encoding) on mismatch.

    rtol/atol, when given, replace the per-dtype tolerances for every float in the result."""
    try:
        _compare(expected, actual, rtol, atol, "result")
    except Mismatch as m:
        lines = ["golden case %s: %s" % (case_id, m)]
        if setup is not None:
            lines.append("  setup:    %s" % setup.replace("\n", "\n            "))
        if expr is not None:
            lines.append("  expr:     %s" % expr)
        lines.append("  expected: %s" % _short(expected))
        lines.append("  actual:   %s" % _short(actual))
        raise AssertionError("\n".join(lines)) from None
