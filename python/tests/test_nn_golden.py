"""ember.nn against PyTorch 1.13: every case in python/tests/golden/nn/<group>.json (written by
python/tests/golden/nn/generate.py under the real PyTorch) is replayed with `torch` bound to
ember and must give the same encoded result (golden_compare.py's encoding and tolerances). One
test per case, e.g. test_nn_module[017: ...]. The groups: module (registration, iteration,
state_dict, load_state_dict, containers, Parameter, hooks), init, layers (default
initialisation, forward and printing of every layer, the losses), grads (backward of small
models, clip_grad_norm_/clip_grad_value_) and transformer (MultiheadAttention,
TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder,
Transformer) and rnn (RNN, LSTM, GRU and their cells).

EMBER_GOLDEN_MODULE=torch runs the same cases against the reference PyTorch (a check of the
harness). If the module cannot be imported, every test fails; nothing is skipped.
"""
import glob
import importlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden", "nn")
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from golden_compare import assert_matches, run_case  # noqa: E402

MODULE_NAME = os.environ.get("EMBER_GOLDEN_MODULE", "ember")
try:
    MODULE = importlib.import_module(MODULE_NAME)
    importlib.import_module(MODULE_NAME + ".nn")  # binds MODULE.nn
    IMPORT_ERROR = None
except Exception as exc:  # noqa: BLE001 - reported by every test below
    MODULE = None
    IMPORT_ERROR = "import %s.nn failed: %s: %s" % (MODULE_NAME, type(exc).__name__, exc)


def _groups():
    out = {}
    for path in sorted(glob.glob(os.path.join(GOLDEN_DIR, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        out[data["group"]] = (data["preludes"], data["cases"])
    return out


GROUPS = _groups()


def _module():
    if MODULE is None:
        pytest.fail(IMPORT_ERROR, pytrace=False)
    return MODULE


def test_nn_golden_files_present():
    for name in ("module", "init", "layers", "grads", "transformer", "rnn", "more_layers"):
        assert name in GROUPS and GROUPS[name][1], \
            "python/tests/golden/nn/%s.json missing or empty: run " \
            "python/tests/golden/nn/generate.py" % name


def _check(group, preludes, case):
    mod = _module()
    prelude = preludes[case["prelude"]]
    setup = prelude + "\n" + case["setup"] if case["setup"] else prelude
    actual = run_case(mod, setup, case["expr"])
    message = None
    try:
        assert_matches(case["expected"], actual, "nn_%s[%s]" % (group, case["id"]),
                       rtol=case.get("rtol"), atol=case.get("atol"),
                       setup=case["setup"] or "(prelude %d only)" % case["prelude"],
                       expr=case["expr"])
    except AssertionError as err:
        message = str(err)
    if message is not None:  # outside the except: no chained traceback in the report
        pytest.fail(message, pytrace=False)


def _make_test(group, preludes, cases):
    @pytest.mark.parametrize("case", cases, ids=[c["id"] for c in cases])
    def test(case):
        _check(group, preludes, case)

    test.__name__ = "test_nn_" + group
    test.__doc__ = "golden cases of group %r (python/tests/golden/nn/%s.json)" % (group, group)
    return test


for _name, (_preludes, _cases) in GROUPS.items():
    globals()["test_nn_" + _name] = _make_test(_name, _preludes, _cases)
del _name, _preludes, _cases
