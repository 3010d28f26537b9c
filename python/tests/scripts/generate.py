"""Writes NAME.expected for every NAME.py here: its output under real PyTorch 1.13
(/usr/bin/python3 with python3-torch). test_scripts.py runs the same scripts through
ember-python and compares. --check writes nothing and fails when a file differs (CTest
python_golden_scripts)."""
import pathlib
import subprocess
import sys

check = "--check" in sys.argv[1:]
here = pathlib.Path(__file__).resolve().parent
stale = []
for script in sorted(here.glob("*.py")):
    if script.name == "generate.py":
        continue
    out = subprocess.run([sys.executable, str(script)], check=True, capture_output=True, text=True,
                         cwd=here).stdout
    expected = here / (script.stem + ".expected")
    if check:
        if not expected.exists() or expected.read_text() != out:
            stale.append(expected.name)
        continue
    expected.write_text(out)
    print("%-28s %d lines" % (script.name, out.count("\n")))
if stale:
    sys.exit("stale (regenerate with python/tests/scripts/generate.py): " + ", ".join(stale))
