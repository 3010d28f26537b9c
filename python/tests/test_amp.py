"""Mixed precision from Python: autocast's result dtypes equal PyTorch 1.13's for the same code
(golden/amp), autocast as a decorator and nested, GradScaler's scale/unscale/skip/update."""
import json
import pathlib
import sys

import pytest

import ember as torch

HERE = pathlib.Path(__file__).resolve().parent / "golden" / "amp"
sys.path.insert(0, str(HERE))
import cases  # noqa: E402

EXPECTED = json.loads((HERE / "dtypes.json").read_text())
GOT = cases.run(torch)


@pytest.mark.parametrize("expr", cases.EXPRS)
def test_autocast_dtype_matches_pytorch(expr):
    assert GOT[expr] == EXPECTED[expr]


def test_autocast_as_decorator_and_disabled():
    @torch.autocast("cpu")
    def f(a):
        return a @ a

    a = torch.randn(3, 3)
    assert f(a).dtype == torch.bfloat16
    with torch.autocast("cpu", enabled=False):
        assert (a @ a).dtype == torch.float32
    with torch.autocast("cpu"):
        with torch.autocast("cpu", enabled=False):
            assert (a @ a).dtype == torch.float32
        assert (a @ a).dtype == torch.bfloat16
    assert not torch.amp.is_autocast_enabled("cpu")


def test_grad_scaler_scales_skips_and_updates():
    w = torch.ones(3, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler(init_scale=4.0, growth_interval=1)
    scaler.scale((w * 2).sum()).backward()
    assert w.grad.tolist() == [8.0, 8.0, 8.0]
    scaler.step(opt)  # unscales to 2, steps
    scaler.update()
    assert w.tolist() == pytest.approx([0.8, 0.8, 0.8]) and scaler.get_scale() == 8.0
    w.grad = torch.tensor([float("inf"), 1.0, 1.0])
    scaler.step(opt)  # skipped: inf
    scaler.update()
    assert w.tolist() == pytest.approx([0.8, 0.8, 0.8]) and scaler.get_scale() == 4.0
    sd = scaler.state_dict()
    other = torch.amp.GradScaler()
    other.load_state_dict(sd)
    assert other.get_scale() == 4.0
