#!/usr/bin/python3
"""Writes python/tests/golden/nn/<group>.json (PyTorch 1.13's result of every case in cases.py
here), scripts/NAME.expected (the output of scripts/NAME.py under PyTorch 1.13) and
files/torch_*.pt (a model saved by torch.save, for test_nn_module.py).

Run from anywhere with Debian's interpreter (it has torch 1.13 and numpy):
    /usr/bin/python3 python/tests/golden/nn/generate.py [--check] [group|scripts|files ...]
--check compares the files on disk with a fresh run and writes nothing (exit 1 on a difference).

The encoding and the case rules are python/tests/golden/generate.py's (this reuses
golden_compare.py): every case runs twice and must encode the same both times; a case with
`raises` must raise exactly that class, one without must not raise. The layout adds "preludes",
the setup code shared by cases, kept once: a case runs preludes[case["prelude"]] + "\n" +
case["setup"] (just the prelude when setup is empty), then evaluates case["expr"].
"""
import json
import os
import pathlib
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = pathlib.Path(HERE) / "scripts"




sys.path.insert(0, TESTS)
import golden_compare  # noqa: E402
cases = golden_compare.load_module("golden_nn_cases", os.path.join(HERE, "cases.py"))

ID_TEXT_LIMIT = 70




SHORT_FLOATS = {"float32", "float16", "bfloat16"}


def compact(enc):
    """The encoding with the values of float32/16 tensors written with 9 significant digits
    (exact for float32: every float32 round-trips through 9 digits); the rest unchanged."""
    if isinstance(enc, dict):
        if enc.get("kind") == "tensor" and enc.get("dtype") in SHORT_FLOATS:
            enc = dict(enc)
            enc["values"] = [float("%.9g" % v) if isinstance(v, float) else v for v in enc["values"]]
            return enc
        return {k: compact(v) for k, v in enc.items()}
    if isinstance(enc, list):
        return [compact(v) for v in enc]
    return enc


def full_setup(prelude, setup):
    """The code a case runs before its expression (test_nn_golden.py joins them the same way)."""
    return prelude + "\n" + setup if setup else prelude


def run_group(torch, name, group):
    out, problems, preludes = [], [], []
    for index, case in enumerate(group):
        cid = golden_compare.case_id(index, case, ID_TEXT_LIMIT)
        code = full_setup(case["prelude"], case["setup"])
        enc = golden_compare.run_case(torch, code, case["expr"])
        again = golden_compare.run_case(torch, code, case["expr"])
        if json.dumps(enc, sort_keys=True) != json.dumps(again, sort_keys=True):
            problems.append("%s[%s]: not deterministic:\n  %s\n  %s" % (name, cid, enc, again))
        text = json.dumps(enc)
        if '"unsupported"' in text or '"encode_error"' in text:
            problems.append("%s[%s]: result cannot be encoded: %s" % (name, cid, text[:300]))
        want = case.get("raises")
        if enc["kind"] == "error":
            if want != enc["type"]:
                problems.append("%s[%s]: raised %s (%s), case says raises=%r"
                                % (name, cid, enc["type"], enc["message"], want))
        elif want:
            problems.append("%s[%s]: expected %s, got %s" % (name, cid, want, text[:200]))
        if enc.get("kind") == "str" and enc["value"] == "no error" and "err(" in case["expr"]:
            problems.append("%s[%s]: err(...) did not raise under PyTorch" % (name, cid))
        if case["prelude"] not in preludes:
            preludes.append(case["prelude"])
        entry = {"index": index, "id": cid, "prelude": preludes.index(case["prelude"]),
                 "setup": case["setup"], "expr": case["expr"]}
        for key in ("raises", "rtol", "atol"):
            if key in case:
                entry[key] = case[key]
        entry["expected"] = compact(enc)
        out.append(entry)
    ids = [e["id"] for e in out]
    if len(set(ids)) != len(ids):
        problems.append("%s: duplicate case ids" % name)
    return out, problems, preludes


def render(name, torch_version, preludes, entries):
    lines = ['{"group": %s, "torch_version": %s, "preludes": [' % (json.dumps(name),
                                                                  json.dumps(torch_version))]
    lines.append(",\n".join(" " + json.dumps(p) for p in preludes))
    lines.append('], "cases": [')
    lines.append(",\n".join(" " + json.dumps(e, sort_keys=False, allow_nan=False) for e in entries))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def scripts(check):
    """NAME.expected for every scripts/NAME.py: its stdout under PyTorch 1.13."""
    stale = []
    for script in sorted(SCRIPTS.glob("*.py")):
        out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True,
                             text=True, cwd=str(SCRIPTS)).stdout
        expected = SCRIPTS / (script.stem + ".expected")
        if check:
            if not expected.exists() or expected.read_text() != out:
                stale.append(str(expected))
            continue
        expected.write_text(out)
        print("%-28s %d lines" % ("scripts/" + script.name, out.count("\n")))
    return stale


FILES = pathlib.Path(HERE) / "files"

# The model of files/torch_*.pt; test_nn_module.py builds the same one with ember.
FILE_MODEL = """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                            torch.nn.Flatten(), torch.nn.Linear(12, 2))
x = torch.randn(2, 2, 4, 4)
model(x)
model(x * 2)
model.eval()
with torch.no_grad():
    y = model(x)
"""


def files(torch, check):
    """files/torch_state_dict.pt: {'state_dict', 'input', 'output'} of FILE_MODEL after two
    training steps of BatchNorm statistics; files/torch_module.pt: the same with the whole
    module pickled (torch.save(model)). torch.save writes the same bytes every run."""
    import io

    ns = {"torch": torch}
    exec(FILE_MODEL, ns)  # noqa: S102
    model, x, y = ns["model"], ns["x"], ns["y"]
    stale = []
    objects = (("torch_state_dict.pt", {"state_dict": model.state_dict(), "input": x, "output": y}),
               ("torch_module.pt", {"module": model, "input": x, "output": y}))
    for name, obj in objects:
        buf = io.BytesIO()
        torch.save(obj, buf)
        path = FILES / name
        if check:
            if not path.exists() or path.read_bytes() != buf.getvalue():
                stale.append(str(path))
            continue
        FILES.mkdir(exist_ok=True)
        path.write_bytes(buf.getvalue())
        print("%-28s %d bytes" % ("files/" + name, len(buf.getvalue())))
    return stale


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if not a.startswith("--")] or list(cases.GROUPS) + ["scripts", "files"]
    import torch  # noqa: E402 - the reference; only here, never in cases.py

    if not torch.__version__.startswith("1.13"):
        sys.exit("generate.py needs PyTorch 1.13 (Debian's /usr/bin/python3); found %s"
                 % torch.__version__)
    torch.set_num_threads(1)
    all_problems, differ = [], []
    for name in wanted:
        if name == "scripts":
            differ += scripts(check)
            continue
        if name == "files":
            differ += files(torch, check)
            continue
        entries, problems, preludes = run_group(torch, name, cases.GROUPS[name])
        all_problems += problems
        text = render(name, torch.__version__, preludes, entries)
        json.loads(text)
        golden_compare.store(os.path.join(HERE, name + ".json"), text, check, problems, differ)
        errors = sum(1 for e in entries if e["expected"]["kind"] == "error")
        print("%-12s %4d cases (%d raise), %6.1f KB" % (name, len(entries), errors,
                                                         len(text) / 1024.0))
    golden_compare.finish(all_problems, differ)


if __name__ == "__main__":
    main(sys.argv[1:])
