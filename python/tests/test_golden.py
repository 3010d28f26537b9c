"""ember's Python package against PyTorch 1.13: every case in python/tests/golden/<group>.json
(written by python/tests/golden/generate.py under the real PyTorch) is replayed with `torch`
bound to ember and must give the same encoded result (golden_compare.py has the encoding and the
tolerances). One test per case, e.g. test_indexing[017: t[1:3, None]].

EMBER_GOLDEN_MODULE names the module bound to `torch` (default "ember"). Running
    EMBER_GOLDEN_MODULE=torch /usr/bin/python3 -m pytest -q python/tests/test_golden.py
against the reference PyTorch must pass every case: that checks the harness itself.

If the module cannot be imported, every test FAILS (ember is expected to be built), it does not
skip.
"""
import glob
import importlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden")
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from golden_compare import assert_matches, run_case  # noqa: E402

MODULE_NAME = os.environ.get("EMBER_GOLDEN_MODULE", "ember")
try:
    MODULE = importlib.import_module(MODULE_NAME)
    IMPORT_ERROR = None
except Exception as exc:  # noqa: BLE001 - reported by every test below
    MODULE = None
    IMPORT_ERROR = "import %s failed: %s: %s" % (MODULE_NAME, type(exc).__name__, exc)
else:
    if getattr(MODULE, "Tensor", None) is None:  # e.g. an empty namespace package: not built
        IMPORT_ERROR = "module %s (from %s) has no Tensor: is the extension built?" % (
            MODULE_NAME, getattr(MODULE, "__path__", getattr(MODULE, "__file__", "?")))
        MODULE = None


def _groups():
    out = {}
    for path in sorted(glob.glob(os.path.join(GOLDEN_DIR, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        out[data["group"]] = data["cases"]
    return out


GROUPS = _groups()


def _module():
    if MODULE is None:
        pytest.fail(IMPORT_ERROR, pytrace=False)
    return MODULE


def test_import():
    _module()


def test_golden_files_present():
    for name in ("indexing", "tensor_api", "autograd"):
        assert name in GROUPS and GROUPS[name], \
            "python/tests/golden/%s.json missing or empty: run python/tests/golden/generate.py" % name


def _check(group, case):
    mod = _module()
    actual = run_case(mod, case["setup"], case["expr"], strides=bool(case.get("strides")))
    message = None
    try:
        assert_matches(case["expected"], actual, "%s[%s]" % (group, case["id"]),
                       rtol=case.get("rtol"), atol=case.get("atol"),
                       setup=case["setup"], expr=case["expr"])
    except AssertionError as err:
        message = str(err)
    if message is not None:  # outside the except: no chained traceback in the report
        pytest.fail(message, pytrace=False)


def _make_test(group, cases):
    @pytest.mark.parametrize("case", cases, ids=[c["id"] for c in cases])
    def test(case):
        _check(group, case)

    test.__name__ = "test_" + group
    test.__doc__ = "golden cases of group %r (python/tests/golden/%s.json)" % (group, group)
    return test


for _name, _cases in GROUPS.items():
    globals()["test_" + _name] = _make_test(_name, _cases)
del _name, _cases
