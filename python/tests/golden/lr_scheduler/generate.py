#!/usr/bin/python3
"""Writes python/tests/golden/lr_scheduler/lr_scheduler.json: PyTorch 1.13's result for every
case in cases.py (learning-rate schedules with real torch.optim.SGD / Adam).

Run from anywhere with Debian's interpreter (it has torch 1.13):
    /usr/bin/python3 python/tests/golden/lr_scheduler/generate.py [--check]
--check compares the file on disk with a fresh run and writes nothing (exit 1 on a difference).

Each case runs twice and must give the same result both times. Floats are stored with
Python's repr (exact in float64); python/tests/test_lr_scheduler.py replays the cases on ember
and requires ==. One case per line.
"""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "lr_scheduler.json")


def _load_cases():
    spec = importlib.util.spec_from_file_location("lr_scheduler_cases",
                                                  os.path.join(HERE, "cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def torch_env(cases):
    import torch  # the reference; only here, never in cases.py

    def make_optimizer(kind, groups, kw):
        if kind == "none":
            return [1, 2]
        cls = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[kind]
        param_groups = [dict(g, params=[torch.zeros(2, requires_grad=True)]) for g in groups]
        return cls(param_groups, **kw)

    return torch, cases.Env(torch.optim.lr_scheduler, make_optimizer)


def render(torch_version, entries):
    lines = ['{"torch_version": %s, "cases": [' % json.dumps(torch_version)]
    lines.append(",\n".join(" " + json.dumps(e, allow_nan=False) for e in entries))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def main(argv):
    check = "--check" in argv
    cases = _load_cases()
    torch, env = torch_env(cases)
    if not torch.__version__.startswith("1.13"):
        sys.exit("generate.py needs PyTorch 1.13 (Debian's /usr/bin/python3); found %s"
                 % torch.__version__)
    entries, problems = [], []
    for c in cases.CASES:
        result = cases.run_case(env, c)
        again = cases.run_case(env, c)
        if json.dumps(result, sort_keys=True) != json.dumps(again, sort_keys=True):
            problems.append("%s: not deterministic" % c["name"])
        entry = dict(c)
        entry["expected"] = result
        entries.append(entry)
    text = render(torch.__version__, entries)
    json.loads(text)
    if problems:
        sys.exit("\n".join(problems))
    errors = sum(1 for e in entries if "error" in e["expected"])
    print("lr_scheduler: %d cases (%d raise), %.1f KB" % (len(entries), errors, len(text) / 1024.0))
    if check:
        old = open(OUT).read() if os.path.exists(OUT) else None
        if old != text:
            sys.exit("out of date: %s" % OUT)
    else:
        with open(OUT, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
