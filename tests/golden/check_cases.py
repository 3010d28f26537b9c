#!/usr/bin/python3
"""Checks that a golden generator still writes the cases its committed files hold (a CTest per
generator, golden_cases_<gen>). Run with Debian's /usr/bin/python3 (python3-torch):

    /usr/bin/python3 tests/golden/check_cases.py gen_conv.py   # one generator
    /usr/bin/python3 tests/golden/check_cases.py --self-test   # the check notices a difference

The generator runs on a copy of itself in a temporary folder (so tests/golden is not touched);
every file it writes must be committed under the same name, with the same case list:
  JSON   a "cases" list's entries by their family/op/name/label/dtype, and the other top-level
         keys (of tables of named entries, the entry names too)
  text   the cases the line-based formats name (print.txt's "case" lines, random.txt's record
         names, promotion.txt's and half_bf16.txt's inputs)
  other  (.pt, .safetensors) the file names
Values are not compared: some outputs differ in their last bits from host to host (see regen.sh).
Exit status 1 and the names added, missing or reordered when the lists differ.
"""
import json
from collections import Counter
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ID_KEYS = ("family", "op", "name", "label", "dtype")

# The identity of a line of each text format: its fields -> the case it names, or None.
TEXT_CASES = {
    "print.txt": lambda f: f[1] if f[0] == "case" else None,
    "random.txt": lambda f: f[0],
    "promotion.txt": lambda f: " ".join(f[:-1]),  # the inputs; the last field is the result
    "half_bf16.txt": lambda f: " ".join(f[:2]),  # tag and input bits
}


def case_id(case):
    return " / ".join(str(case[k]) for k in ID_KEYS if isinstance(case.get(k), str))


def json_cases(obj):
    if not isinstance(obj, dict):
        return [type(obj).__name__]
    names = []
    for key, value in obj.items():
        if isinstance(value, list) and value and all(isinstance(c, dict) for c in value):
            names += [f"{key}: {case_id(c)}" for c in value]
        elif isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            names += [f"{key}: {k}" for k in value]
        else:
            names.append(key)
    return names


def cases(path):
    name = os.path.basename(path)
    if name.endswith(".json"):
        with open(path) as f:
            return json_cases(json.load(f))
    if name in TEXT_CASES:
        out = []
        with open(path) as f:
            for line in f:
                fields = line.split()
                if fields and not fields[0].startswith("#"):
                    c = TEXT_CASES[name](fields)
                    if c is not None:
                        out.append(c)
        return out
    return []  # a binary file: its name is its case


def run_generator(gen, workdir):
    """Runs tests/golden/<gen> in workdir; returns the files it wrote, relative to workdir."""
    for f in (gen, "golden_json.py"):
        shutil.copy(os.path.join(HERE, f), workdir)
    r = subprocess.run([sys.executable, gen], cwd=workdir, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{gen} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    written = []
    for root, dirs, files in os.walk(workdir):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        written += [os.path.relpath(os.path.join(root, f), workdir) for f in files
                    if not f.endswith(".py")]
    return sorted(written)


def differences(got, want):
    """What differs between two case lists, one line each."""
    if got == want:
        return []
    extra, lost = Counter(got) - Counter(want), Counter(want) - Counter(got)
    out = [f"  new, not committed: {c}" for c in got if extra[c]]
    out += [f"  committed, not generated: {c}" for c in want if lost[c]]
    if not out:
        out.append("  same cases in another order")
    return out


def check(gen, committed_dir):
    """Problems (lines of text) between what `gen` writes and the files in committed_dir."""
    problems = []
    with tempfile.TemporaryDirectory() as work:
        written = run_generator(gen, work)
        if not written:
            problems.append(f"{gen} wrote no files")
        for rel in written:
            committed = os.path.join(committed_dir, rel)
            if not os.path.exists(committed):
                problems.append(f"{rel}: written by {gen} but not committed")
                continue
            diff = differences(cases(os.path.join(work, rel)), cases(committed))
            if diff:
                problems.append(f"{rel}: the cases of {gen} differ from the committed file")
                problems += diff[:20] + ([f"  ... {len(diff) - 20} more"] if len(diff) > 20 else [])
    return problems


def self_test():
    """The check must fail on a committed file that lacks a case or has an extra one."""
    gen, out = "gen_nn_losses.py", "nn_losses.json"
    with tempfile.TemporaryDirectory() as fake:
        with open(os.path.join(HERE, out)) as f:
            data = json.load(f)
        dropped = data["cases"].pop()["name"]
        data["cases"].append({"name": "not_a_generated_case"})
        with open(os.path.join(fake, out), "w") as f:
            json.dump(data, f)
        problems = "\n".join(check(gen, fake))
    expected = [f"new, not committed: cases: {dropped}",
                "committed, not generated: cases: not_a_generated_case"]
    missing = [e for e in expected if e not in problems]
    if missing:
        print("the check missed:", *missing, "it reported:", problems, sep="\n")
        return 1
    print("the check reports a doctored", out, "as expected:\n" + problems)
    return 0


def main():
    try:
        import torch  # noqa: F401  (the generators need it; say so before running them)
    except ImportError:
        sys.exit(f"{sys.executable} has no torch: install python3-torch "
                 "(scripts/bootstrap.sh --golden) and run this with /usr/bin/python3")
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2 or not sys.argv[1].startswith("gen_"):
        sys.exit(__doc__)
    problems = check(sys.argv[1], HERE)
    for p in problems:
        print(p)
    if problems:
        print(f"regenerate with tests/golden/regen.sh (or /usr/bin/python3 tests/golden/"
              f"{sys.argv[1]}) and commit the result")
        return 1
    print(f"{sys.argv[1]}: every file it writes is committed with the same cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
