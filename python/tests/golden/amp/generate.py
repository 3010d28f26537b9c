"""Writes dtypes.json (cases.py under PyTorch 1.13): /usr/bin/python3 python/tests/golden/amp/generate.py"""
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
import torch  # noqa: E402

from cases import run  # noqa: E402

(here / "dtypes.json").write_text(json.dumps(run(torch), indent=1, sort_keys=True) + "\n")
print("dtypes.json written")
