#!/usr/bin/python3
"""Writes python/tests/golden/<group>.json: PyTorch 1.13's result for every case in cases.py.

Run from the repository root with Debian's interpreter (it has torch 1.13 and numpy):
    /usr/bin/python3 python/tests/golden/generate.py [--check] [group ...]
--check compares the files on disk with a fresh run and writes nothing (exit 1 on a difference).

Each case runs twice (it must give the same encoding both times: no uninitialised memory, no
unseeded randomness). A case with `raises` must raise exactly that exception class; a case
without it must not raise. A result the encoder cannot represent stops the run.

File layout (one case per line, so diffs stay readable):
  {"group": ..., "torch_version": ..., "cases": [
   {"index": 0, "id": "000: t[0]", "setup": ..., "expr": ..., "expected": {...}, ...},
   ...]}
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)




sys.path.insert(0, TESTS)
import golden_compare  # noqa: E402
cases = golden_compare.load_module("golden_cases", os.path.join(HERE, "cases.py"))

ID_TEXT_LIMIT = 60




def run_group(torch, name, group):
    out, problems = [], []
    for index, case in enumerate(group):
        cid = golden_compare.case_id(index, case, ID_TEXT_LIMIT)
        strides = bool(case.get("strides"))
        enc = golden_compare.run_case(torch, case["setup"], case["expr"], strides=strides)
        again = golden_compare.run_case(torch, case["setup"], case["expr"], strides=strides)
        if json.dumps(enc, sort_keys=True) != json.dumps(again, sort_keys=True):
            problems.append("%s[%s]: not deterministic:\n  %s\n  %s" % (name, cid, enc, again))
        if not golden_compare.matches(enc, again):
            problems.append("%s[%s]: does not match itself" % (name, cid))
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
        entry = {"index": index, "id": cid, "setup": case["setup"], "expr": case["expr"]}
        for key in ("raises", "strides", "rtol", "atol"):
            if key in case:
                entry[key] = case[key]
        entry["expected"] = enc
        out.append(entry)
    return out, problems


def render(name, torch_version, entries):
    lines = ['{"group": %s, "torch_version": %s, "cases": [' % (json.dumps(name),
                                                               json.dumps(torch_version))]
    body = [" " + json.dumps(e, sort_keys=False, allow_nan=False) for e in entries]
    lines.append(",\n".join(body))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def main(argv):
    check = "--check" in argv
    wanted = [a for a in argv if not a.startswith("--")] or list(cases.GROUPS)
    import torch  # noqa: E402 - the reference; only here, never in cases.py

    if not torch.__version__.startswith("1.13"):
        sys.exit("generate.py needs PyTorch 1.13 (Debian's /usr/bin/python3); found %s"
                 % torch.__version__)
    torch.set_num_threads(1)
    all_problems, differ = [], []
    for name in wanted:
        entries, problems = run_group(torch, name, cases.GROUPS[name])
        all_problems += problems
        text = render(name, torch.__version__, entries)
        json.loads(text)  # valid JSON
        golden_compare.store(os.path.join(HERE, name + ".json"), text, check, problems, differ)
        errors = sum(1 for e in entries if e["expected"]["kind"] == "error")
        print("%-11s %4d cases (%d raise), %6.1f KB" % (name, len(entries), errors,
                                                        len(text) / 1024.0))
    golden_compare.finish(all_problems, differ)


if __name__ == "__main__":
    main(sys.argv[1:])
