"""PyTorch's side of bench/compare.py: the cases of cases.h through Python's torch, answering
"<name> <median seconds>" for each case name read on stdin. Run with Debian's /usr/bin/python3."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_timing import median_seconds, tiny_seconds  # noqa: E402

torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
torch.set_grad_enabled(False)

N16 = 1 << 24


def durable_save(obj, path):
    """A crash-safe torch.save: a temp file in the same directory, fsync, rename, fsync the
    directory (what ember's save does by default)."""
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    fd = os.open(tmp, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def case(name):
    if name == "add_16M":
        a, b = torch.rand(N16), torch.rand(N16)
        return median_seconds(lambda: a + b, 15)
    if name == "exp_16M":
        a = torch.rand(N16)
        return median_seconds(lambda: torch.exp(a), 15)
    if name == "sigmoid_16M":
        a = torch.randn(N16)
        return median_seconds(lambda: torch.sigmoid(a), 15)
    if name == "gelu_16M":
        a = torch.randn(N16)
        return median_seconds(lambda: F.gelu(a), 15)
    if name == "gelu_tanh_16M":
        a = torch.randn(N16)
        return median_seconds(lambda: F.gelu(a, approximate="tanh"), 15)
    for suffix, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        if name == "add_16M_" + suffix:
            a, b = torch.rand(N16).to(dtype), torch.rand(N16).to(dtype)
            return median_seconds(lambda: a + b, 15)
        if name == "gelu_16M_" + suffix:
            if dtype == torch.float16:
                return float("nan")  # PyTorch 1.13's CPU gelu has no float16 kernel
            a = torch.randn(N16).to(dtype)
            return median_seconds(lambda: F.gelu(a), 15)
    if name == "sum_4096x4096":
        a = torch.randn(4096, 4096)
        return median_seconds(lambda: a.sum(), 25)
    if name == "softmax_4096x4096":
        a = torch.randn(4096, 4096)
        return median_seconds(lambda: a.softmax(-1), 15)
    if name.startswith("amp_"):
        return amp_case(name)
    if name.startswith("matmul_"):
        n = int(name.split("_")[1])
        a, b = torch.randn(n, n), torch.randn(n, n)
        return median_seconds(lambda: a @ b, 5 if n >= 2048 else 15)
    if name == "bmm_64x128x128":
        a, b = torch.randn(64, 128, 128), torch.randn(64, 128, 128)
        return median_seconds(lambda: torch.bmm(a, b), 25)
    if name == "conv_1to32_28x28_b128":
        x, w, b = torch.randn(128, 1, 28, 28), torch.randn(32, 1, 3, 3), torch.randn(32)
        return median_seconds(lambda: F.conv2d(x, w, b, padding=1), 15)
    if name == "conv_32to64_14x14_b128":
        x, w, b = torch.randn(128, 32, 14, 14), torch.randn(64, 32, 3, 3), torch.randn(64)
        return median_seconds(lambda: F.conv2d(x, w, b, padding=1), 15)
    if "_bwd_" in name:  # conv_<cin>to<cout>_<hw>x<hw>_b128_bwd_{input,weight}
        cin, cout = (int(v) for v in name.split("_")[1].split("to"))
        hw = int(name.split("_")[2].split("x")[0])
        g, x, w = torch.randn(128, cout, hw, hw), torch.randn(128, cin, hw, hw), torch.randn(cout, cin, 3, 3)
        mask = [name.endswith("input"), name.endswith("weight"), False]
        return median_seconds(lambda: torch.ops.aten.convolution_backward(
            g, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, mask), 15)
    if name == "add_1elem":
        a, b = torch.randn(1), torch.randn(1)
        return tiny_seconds(lambda: a + b)
    if name == "add_16elem":
        a, b = torch.randn(16), torch.randn(16)
        return tiny_seconds(lambda: a + b)
    if name in ("add_16elem_profiled", "add_16elem_profiled_shapes"):
        a, b = torch.randn(16), torch.randn(16)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    record_shapes=name.endswith("_shapes")):
            return tiny_seconds(lambda: a + b)
    if name == "adamw_10M":
        p = torch.randn(10_000_000, requires_grad=True)
        p.grad = torch.randn(10_000_000)
        opt = torch.optim.AdamW([p], lr=1e-3, weight_decay=0.01)
        return median_seconds(opt.step, 15)
    if name.startswith(("save_100MB", "load_100MB")):
        sd = {"layer%d.weight" % i: torch.randn(1 << 20) for i in range(25)}
        path = "/tmp/torch_bench_100mb.pt"
        torch.save(sd, path)
        if name == "save_100MB_durable":
            return median_seconds(lambda: durable_save(sd, path), 5)
        if name.startswith("save_100MB"):  # plain torch.save, no fsync (also the _nosync row)
            return median_seconds(lambda: torch.save(sd, path), 5)
        if name == "load_100MB_touch":  # one byte of every 4 KiB page
            return median_seconds(
                lambda: [t.view(torch.uint8)[::4096].sum() for t in torch.load(path).values()], 5)
        return median_seconds(lambda: torch.load(path), 5)
    if name in ("add_16elem_grad", "mlp8_step"):
        with torch.enable_grad():
            return grad_case(name)
    return float("nan")


def amp_case(name):
    """Mixed precision: CPU bfloat16 autocast (1.13 has no float16 CPU autocast)."""
    if name == "amp_matmul_16elem":
        a, b = torch.randn(4, 4), torch.randn(4, 4)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return tiny_seconds(lambda: a @ b)
    if name.startswith("amp_matmul_1024_"):
        dt = torch.bfloat16 if name.endswith("bf16") else torch.float16
        a, b = torch.randn(1024, 1024).to(dt), torch.randn(1024, 1024).to(dt)
        try:
            a @ b
        except RuntimeError:  # no float16 GEMM on CPU in 1.13
            return float("nan")
        return median_seconds(lambda: a @ b, 15)
    if name.startswith("amp_transformer_step_"):
        bf16 = name.endswith("bf16")
        with torch.enable_grad():
            layer = torch.nn.TransformerEncoderLayer(256, 8, dim_feedforward=1024, batch_first=True)
            opt = torch.optim.AdamW(layer.parameters(), lr=1e-4)
            x = torch.randn(32, 128, 256)

            def step():
                opt.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                    loss = layer(x).pow(2).mean()
                loss.backward()
                opt.step()
            return median_seconds(step, 7)
    return float("nan")


def grad_case(name):
    if name == "add_16elem_grad":
        a, b = torch.randn(16, requires_grad=True), torch.randn(16, requires_grad=True)
        return tiny_seconds(lambda: a + b)
    if name == "mlp8_step":
        w = [torch.randn(8, 8, requires_grad=True) for _ in range(3)]
        b = [torch.randn(8, requires_grad=True) for _ in range(3)]
        x = torch.randn(8, 8)

        def step():
            h = torch.relu(F.linear(x, w[0], b[0]))
            h = torch.relu(F.linear(h, w[1], b[1]))
            F.linear(h, w[2], b[2]).sum().backward()
        return tiny_seconds(step)


for line in sys.stdin:
    name = line.strip()
    if name:
        print(name, case(name), flush=True)
