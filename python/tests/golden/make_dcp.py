"""Writes the distributed checkpoint test_distributed_checkpoint.py loads, with real PyTorch 1.13
(/usr/bin/python3): 1.13's save_state_dict from one process (no_dist=True) with its default
FileSystemWriter (a file per item), into python/tests/golden/dcp_torch113/.

    /usr/bin/python3 python/tests/golden/make_dcp.py

Values are made from arange, so the test rebuilds what to expect itself. The keys are 1.13's
flat ones; "model.fc.weight" loads into ember's nested {"model": {"fc.weight": ...}}, and the
keys inside a dict 1.13 saved whole ("cfg", "optim") load into nested targets."""
import pathlib
import shutil
import sys

here = pathlib.Path(__file__).resolve().parent
# tests/golden/gen_dcp.py (the C++ interop fixtures) makes 1.13's torch.distributed._shard
# importable on Python 3.11 when imported; its main() does not run.
sys.path.insert(0, str(here.parents[2] / "tests" / "golden"))
import gen_dcp  # noqa: E402,F401

import torch  # noqa: E402
import torch.distributed._shard.checkpoint as dcp  # noqa: E402

out = here / "dcp_torch113"
shutil.rmtree(out, ignore_errors=True)
state = {
    "model.fc.weight": torch.arange(12, dtype=torch.float32).reshape(4, 3),
    "model.fc.bias": torch.arange(4, dtype=torch.float64) / 4,
    "half": torch.arange(5, dtype=torch.float16),
    "ids": torch.tensor([3, 1, 2]),
    "mask": torch.tensor([True, False, True]),
    "epoch": 7,
    "lr": 0.5,
    "name": "run",
    "lrs": [0.1, 0.01],
    "betas": (0.9, 0.999),
    "cfg": {"depth": 2, "act": "gelu"},
    # 1.13 saves a nested dict as one item (tensors inside): ember reads keys inside it.
    "optim": {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.arange(4.0) / 8}},
              "param_groups": [{"lr": 0.1, "params": [0]}]},
    "none": None,
}
dcp.save_state_dict(state, dcp.FileSystemWriter(str(out)), no_dist=True)
for f in sorted(out.iterdir()):
    print(f.name, f.stat().st_size, "bytes")
