"""The reference's programs, written with `import torch`, run through ember-python: their output
must be PyTorch's (scripts/NAME.expected, written by scripts/generate.py under PyTorch 1.13).
Also what the alias does with what ember lacks."""
import os
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"


def ember_python():
    """The ember-python of the build (CTest sets EMBER_PYTHON), else the module form."""
    launcher = os.environ.get("EMBER_PYTHON")
    return [launcher] if launcher else [sys.executable, "-m", "ember.compat"]


def run(args, **kw):
    return subprocess.run(ember_python() + args, capture_output=True, text=True, timeout=120, **kw)


@pytest.mark.parametrize("name", sorted(p.stem for p in SCRIPTS.glob("*.py") if p.stem != "generate"))
def test_reference_script_output_is_pytorchs(name):
    r = run([str(SCRIPTS / (name + ".py"))])
    assert r.returncode == 0, r.stderr
    expected = (SCRIPTS / (name + ".expected")).read_text()
    assert r.stdout.splitlines() == expected.splitlines()


def test_torch_resolves_to_embers_modules():
    r = run(["-c", "import torch, ember, torch.autograd as ag, torch.cuda\n"
                   "print(torch is ember, ag is ember.autograd, torch.cuda.is_available())\n"
                   "from torch.autograd import Function, grad\n"
                   "print(Function is ember.autograd.Function)"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True", "False", "True"]


def test_missing_module_fails_at_once_naming_it():
    r = run(["-c", "import torch.fft"])
    assert r.returncode != 0
    assert "ModuleNotFoundError" in r.stderr and "torch.fft is not in ember" in r.stderr


def test_missing_attribute_fails_naming_it():
    r = run(["-c", "import torch\ntorch.fft_not_a_thing(1)"])
    assert r.returncode != 0
    assert "AttributeError" in r.stderr and "torch.fft_not_a_thing is not in ember" in r.stderr


def test_script_arguments_and_exit_status(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import sys, torch\nprint(sys.argv[1:], torch.__name__)\nsys.exit(3)\n")
    r = run([str(prog), "--epochs", "2"])
    assert r.returncode == 3
    assert r.stdout.strip() == "['--epochs', '2'] ember"


def test_a_missing_script_is_a_clear_error(tmp_path):
    r = run([str(tmp_path / "nope.py")])
    assert r.returncode == 2 and "can't open file" in r.stderr


def test_plain_python_still_imports_the_real_torch_or_nothing():
    # The alias exists only inside ember-python: no package named torch is on ember's path.
    r = subprocess.run([sys.executable, "-c", "import importlib.util, ember\n"
                        "s = importlib.util.find_spec('torch')\n"
                        "print(s is None or 'ember' not in (s.origin or ''))"],
                       capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "True", r.stderr
