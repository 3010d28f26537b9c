#!/usr/bin/env python3
"""compare_output.py must accept LibTorch's output within the tolerance and report a changed
number, a changed word, a missing line and an extra line."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = "Loss: 0.0231 after 12 batches\n 0.1000  0.2000\n[ CPUFloatType{2} ]\n"
CASES = {  # actual output -> whether it must match
    GOLDEN: True,
    GOLDEN.replace("0.0231", "0.023100001"): True,
    GOLDEN.replace("0.0231", "0.0232"): False,
    GOLDEN.replace("12", "13"): False,
    GOLDEN.replace("CPUFloatType", "CPUDoubleType"): False,
    GOLDEN.rsplit("\n", 2)[0] + "\n": False,
    GOLDEN + "extra\n": False,
}

failures = 0
with tempfile.TemporaryDirectory() as d:
    golden = os.path.join(d, "golden.txt")
    open(golden, "w").write(GOLDEN)
    for text, should_match in CASES.items():
        actual = os.path.join(d, "actual.txt")
        open(actual, "w").write(text)
        rc = subprocess.run([sys.executable, os.path.join(HERE, "compare_output.py"), golden,
                             actual], capture_output=True).returncode
        if (rc == 0) != should_match:
            print(f"compare_output.py {'rejected' if rc else 'accepted'}: {text!r}")
            failures += 1
sys.exit(1 if failures else 0)
