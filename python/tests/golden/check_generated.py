"""CTest python_golden_optim_amp: regenerates the optimizer trajectories and the autocast dtypes
with PyTorch 1.13 into a temporary folder and fails when they differ from the committed files
(a case edited without regenerating)."""
import json
import pathlib
import sys

import torch

here = pathlib.Path(__file__).resolve().parent
stale = []
for folder, module, fn, name in [("optim", "trajectories", "run_all", "trajectories.json"),
                                 ("amp", "cases", "run", "dtypes.json")]:
    sys.path.insert(0, str(here / folder))
    fresh = getattr(__import__(module), fn)(torch)
    sys.path.pop(0)
    sys.modules.pop(module, None)
    committed = json.loads((here / folder / name).read_text())
    if json.loads(json.dumps(fresh)) != committed:
        stale.append(folder + "/" + name)
if stale:
    sys.exit("stale golden files (run their generate.py): " + ", ".join(stale))
print("optim and amp golden files are current")
