"""The reference's nn.Module programs (python/tests/golden/nn/scripts/NAME.py, written with
`import torch`) run through ember-python: their output must be PyTorch 1.13's (NAME.expected,
written by python/tests/golden/nn/generate.py under the real PyTorch)."""
import os
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parent / "golden" / "nn" / "scripts"


def ember_python():
    """The ember-python of the build (CTest sets EMBER_PYTHON), else the module form."""
    launcher = os.environ.get("EMBER_PYTHON")
    return [launcher] if launcher else [sys.executable, "-m", "ember.compat"]


def test_scripts_present():
    assert sorted(SCRIPTS.glob("*.py")), "no scripts in %s" % SCRIPTS


@pytest.mark.parametrize("name", sorted(p.stem for p in SCRIPTS.glob("*.py")))
def test_reference_nn_script_output_is_pytorchs(name):
    r = subprocess.run(ember_python() + [str(SCRIPTS / (name + ".py"))], capture_output=True,
                       text=True, timeout=120, cwd=str(SCRIPTS))
    assert r.returncode == 0, r.stderr
    expected = (SCRIPTS / (name + ".expected")).read_text()
    assert r.stdout.splitlines() == expected.splitlines()
