"""Optimizers: trajectories equal PyTorch 1.13's (float64, 1e-12), param_groups editable as
dicts, state dicts in PyTorch's layout both ways, PyTorch's argument errors."""
import json
import pathlib
import subprocess
import sys

import pytest

import ember as torch

HERE = pathlib.Path(__file__).resolve().parent / "golden" / "optim"
sys.path.insert(0, str(HERE))
from trajectories import CONFIGS, LBFGS_CONFIGS, run, run_lbfgs  # noqa: E402

EXPECTED = json.loads((HERE / "trajectories.json").read_text())


def close(a, b, tol=1e-12):
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    return abs(a - b) <= tol * max(1.0, abs(b))


@pytest.mark.parametrize("i", range(len(CONFIGS)), ids=["%02d_%s" % (i, c[0]) for i, c in enumerate(CONFIGS)])
def test_trajectory_matches_pytorch(i):
    name, kw = CONFIGS[i]
    got = run(torch, name, kw)
    want = EXPECTED["%02d_%s" % (i, name)]
    assert close(got["w"], want["w"]) and close(got["b"], want["b"])
    assert got["group0"] == want["group0"]
    assert got["state_keys"] == want["state_keys"] and got["state_ids"] == [int(k) for k in want["state_ids"]]


@pytest.mark.parametrize("i", range(len(LBFGS_CONFIGS)), ids=["lbfgs_%02d" % i for i in range(len(LBFGS_CONFIGS))])
def test_lbfgs_trajectory_matches_pytorch(i):
    got = run_lbfgs(torch, LBFGS_CONFIGS[i])
    want = EXPECTED["lbfgs_%02d" % i]
    # Dozens of iterations, each with dot products summed in another order than PyTorch's: the
    # float64 rounding differences compound to ~1e-12, so 1e-9 here.
    assert close(got["w"], want["w"], 1e-9) and close(got["b"], want["b"], 1e-9)
    assert close(got["losses"], want["losses"], 1e-9)
    assert got["group0"] == want["group0"] and got["state_keys"] == want["state_keys"]
    assert (got["func_evals"], got["n_iter"], got["history"]) == \
        (want["func_evals"], want["n_iter"], want["history"])


def test_lbfgs_errors_are_pytorchs():
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        torch.optim.LBFGS([{"params": [w]}, {"params": [b]}])
    opt = torch.optim.LBFGS([w], line_search_fn="foo")  # PyTorch refuses it at the first step
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(lambda: (w ** 2).sum())
    with pytest.raises(TypeError):
        torch.optim.LBFGS([w]).step()  # the closure is required
    # A closure returning a minimum at once: one evaluation, the parameters untouched.
    opt = torch.optim.LBFGS([w])

    def at_minimum():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss
    assert float(opt.step(at_minimum)) == 0.0 and opt.state[w]["func_evals"] == 1
    assert w.tolist() == [0.0, 0.0]


def test_param_groups_are_dicts_and_errors_are_pytorchs():
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    assert isinstance(opt.param_groups[0], dict) and opt.param_groups[0]["params"][0] is w
    opt.param_groups[0]["lr"] = 1.0
    w.grad = torch.ones(2)
    opt.step()
    assert w.tolist() == [-1.0, -1.0]
    with pytest.raises(ValueError, match="Invalid learning rate"):
        torch.optim.Adam([w], lr=-1)
    with pytest.raises(ValueError, match="empty parameter list"):
        torch.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        torch.optim.SGD([w])
    with pytest.raises(TypeError):
        torch.optim.SGD(w, lr=0.1)
    opt.zero_grad()
    assert w.grad.tolist() == [0.0, 0.0]  # 1.13's default keeps a zeroed grad
    opt.zero_grad(set_to_none=True)
    assert w.grad is None


def test_add_param_group_keeps_state():
    a, b = torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)
    opt = torch.optim.Adam([a], lr=0.1)
    a.grad = torch.ones(2)
    opt.step()
    opt.add_param_group({"params": [b], "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.param_groups[1]["betas"] == (0.9, 0.999)
    a.grad, b.grad = torch.ones(2), torch.ones(3)
    opt.step()
    assert opt.state[a]["step"].item() == 2 and opt.state[b]["step"].item() == 1


def real_torch_available():
    return subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0


@pytest.mark.skipif(not real_torch_available(), reason="PyTorch (python3-torch) is not installed: "
                    "scripts/bootstrap.sh --golden installs it")
def test_state_dicts_cross_to_pytorch_and_back(tmp_path):
    torch.manual_seed(0)
    w = torch.randn(3, requires_grad=True)
    opt = torch.optim.AdamW([w], lr=0.01)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    torch.save(opt.state_dict(), tmp_path / "ember_opt.pt")
    script = (
        "import sys, torch\n"
        "sd = torch.load(sys.argv[1])\n"
        "w = torch.zeros(3, requires_grad=True)\n"
        "opt = torch.optim.AdamW([w], lr=0.5)\n"
        "opt.load_state_dict(sd)\n"
        "assert opt.param_groups[0]['lr'] == 0.01 and opt.state[w]['step'].item() == 2\n"
        "opt.param_groups[0]['lr'] = 0.02\n"
        "torch.save(opt.state_dict(), sys.argv[2])\n")
    r = subprocess.run(["/usr/bin/python3", "-c", script, str(tmp_path / "ember_opt.pt"),
                        str(tmp_path / "torch_opt.pt")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    opt2 = torch.optim.AdamW([w], lr=0.5)
    opt2.load_state_dict(torch.load(tmp_path / "torch_opt.pt"))
    assert opt2.param_groups[0]["lr"] == 0.02 and opt2.state[w]["step"].item() == 2
    assert opt2.state[w]["exp_avg"].tolist() == opt.state[w]["exp_avg"].tolist()
