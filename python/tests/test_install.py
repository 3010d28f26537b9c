"""`cmake --install` puts the package in <prefix>/lib/python3/dist-packages/ember and
ember-python in <prefix>/bin; both work from there, away from the build tree."""
import os
import subprocess
import sys

import pytest

BUILD = os.environ.get("EMBER_BUILD_DIR")


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build to install")
def test_installed_package_and_ember_python(tmp_path):
    prefix = tmp_path / "prefix"
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    site = prefix / "lib" / "python3" / "dist-packages"
    assert (site / "ember" / "__init__.py").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", "import ember; print(ember.__file__); "
                        "print(ember.arange(3).sum().item())"],
                       capture_output=True, text=True, env={**env, "PYTHONPATH": str(site)}, timeout=60,
                       cwd=str(tmp_path))  # not the build tree, whose ember would shadow the install
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(site / "ember" / "__init__.py"), "3"]
    prog = tmp_path / "prog.py"
    prog.write_text("import torch\nprint(torch.__file__, torch.ones(2).sum().item())\n")
    r = subprocess.run([str(prefix / "bin" / "ember-python"), str(prog)], capture_output=True, text=True,
                       env=env, timeout=60, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(site / "ember" / "__init__.py"), "2.0"]
