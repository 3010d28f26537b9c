"""One side of bench/python_compare.py: per-op cases timed from Python, written once for
`torch`. Run as `python_ops.py MODULE THREADS` with MODULE = ember or torch: the same code runs
on ember's Python package and on PyTorch 1.13, answering "<name> <median seconds per call>" for
each case name read on stdin."""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_timing import median_seconds, tiny_seconds  # noqa: E402

torch = importlib.import_module(sys.argv[1])
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 2)


def case(name):
    torch.manual_seed(0)
    if name == "add_16elem":
        a, b = torch.randn(16), torch.randn(16)
        return tiny_seconds(lambda: a + b)
    if name == "add_scalar_16elem":
        a = torch.randn(16)
        return tiny_seconds(lambda: a + 1.0)
    if name == "sum_16elem":
        a = torch.randn(16)
        return tiny_seconds(lambda: a.sum())
    if name == "sum_dim_16elem":
        a = torch.randn(4, 4)
        return tiny_seconds(lambda: a.sum(dim=1, keepdim=True))
    if name == "slice_16elem":
        a = torch.randn(16)
        return tiny_seconds(lambda: a[1:3])
    if name == "index_2d":
        a = torch.randn(4, 4)
        return tiny_seconds(lambda: a[1, 2])
    if name == "zeros_3x4":
        return tiny_seconds(lambda: torch.zeros(3, 4))
    if name == "add_16elem_grad":
        a, b = torch.randn(16, requires_grad=True), torch.randn(16, requires_grad=True)
        return tiny_seconds(lambda: a + b)
    if name == "mlp8_step":
        # bench/ember_ops.cpp's mlp8_step in Python: 3 layers of 8, linear as addmm.
        ws = [torch.randn(8, 8, requires_grad=True) for _ in range(3)]
        bs = [torch.randn(8, requires_grad=True) for _ in range(3)]
        x = torch.randn(8, 8)

        def step():
            h = torch.relu(torch.addmm(bs[0], x, ws[0].t()))
            h = torch.relu(torch.addmm(bs[1], h, ws[1].t()))
            torch.addmm(bs[2], h, ws[2].t()).sum().backward()
        return tiny_seconds(step, 200)
    if name == "matmul_1024":
        a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
        return median_seconds(lambda: a @ b, 7)
    raise SystemExit("python_ops.py: unknown case " + name)


for line in sys.stdin:
    name = line.strip()
    if name:
        print(name, case(name), flush=True)
