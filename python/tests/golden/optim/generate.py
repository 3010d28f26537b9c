"""Writes trajectories.json: every optimizer's parameters after a few steps under PyTorch 1.13
(two parameter groups, an lr edited mid-run through param_groups, a state_dict round trip), for
test_optim.py, which runs the same code (trajectories.py) on ember:
    /usr/bin/python3 python/tests/golden/optim/generate.py"""
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
import torch  # noqa: E402

from trajectories import run_all  # noqa: E402

(here / "trajectories.json").write_text(json.dumps(run_all(torch), indent=0, sort_keys=True) + "\n")
print("trajectories.json written")
