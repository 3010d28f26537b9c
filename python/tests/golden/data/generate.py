#!/usr/bin/python3
"""Writes python/tests/golden/data/data.json: PyTorch 1.13's result for every case in
python/tests/golden/data/cases.py (torch.utils.data: shuffling streams, random_split,
DistributedSampler, collation, worker seeding and ordering).

Run from the repository root with Debian's interpreter (it has torch 1.13 and numpy):
    /usr/bin/python3 python/tests/golden/data/generate.py [--check]
--check compares the file on disk with a fresh run and writes nothing (exit 1 on a difference).

Encoding and comparison are python/tests/golden_compare.py's (imported, not copied); every case
runs twice and must give the same encoding both times.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "data.json")




sys.path.insert(0, TESTS)
import golden_compare  # noqa: E402
cases = golden_compare.load_module("golden_data_cases", os.path.join(HERE, "cases.py"))




def run(torch):
    out, problems = [], []
    for index, case in enumerate(cases.CASES):
        cid = golden_compare.case_id(index, case, None)
        setup = cases.COMMON + case["setup"]
        enc = golden_compare.run_case(torch, setup, case["expr"])
        again = golden_compare.run_case(torch, setup, case["expr"])
        if json.dumps(enc, sort_keys=True) != json.dumps(again, sort_keys=True):
            problems.append("%s: not deterministic:\n  %s\n  %s" % (cid, enc, again))
        if enc["kind"] in ("unsupported", "encode_error") or '"unsupported"' in json.dumps(enc):
            problems.append("%s: result cannot be encoded: %s" % (cid, enc))
        out.append({"index": index, "id": cid, "setup": setup, "expr": case["expr"], "expected": enc})
    return out, problems


def main(argv):
    import torch  # the reference: PyTorch 1.13
    check = "--check" in argv
    results, problems = run(torch)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    lines = ['{"group": "data", "torch_version": %s, "cases": [' % json.dumps(torch.__version__)]
    lines.append(",\n".join(json.dumps(r, sort_keys=True) for r in results))
    lines.append("]}")
    text = "\n".join(lines) + "\n"
    if check:
        with open(OUT) as f:
            on_disk = json.load(f)
        fresh = json.loads(text)
        if on_disk != fresh:
            print("data.json differs from a fresh run: regenerate it", file=sys.stderr)
            return 1
        print("data.json up to date (%d cases)" % len(results))
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote %s (%d cases)" % (OUT, len(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
