"""Writes NAME.expected for every NAME.py here: its output under real PyTorch 1.13
(/usr/bin/python3 with python3-torch). test_scripts.py runs the same scripts through
ember-python and compares."""
import pathlib
import subprocess
import sys

here = pathlib.Path(__file__).resolve().parent
for script in sorted(here.glob("*.py")):
    if script.name == "generate.py":
        continue
    out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True, text=True,
                         cwd=here).stdout
    (here / (script.stem + ".expected")).write_text(out)
    print("%-28s %d lines" % (script.name, out.count("\n")))
