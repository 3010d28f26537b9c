"""Activation checkpointing from Python: torch.utils.checkpoint.checkpoint/checkpoint_sequential
and torch.distributed.algorithms._checkpoint.checkpoint_wrapper's CheckpointWrapper and
apply_activation_checkpointing. Gradients equal the plain run's exactly (float64), dropout draws
the same mask again, the function really runs again in backward and the graph keeps fewer
tensors (counted through saved_tensors_hooks), state_dict keys are the plain model's."""
import copy
import warnings

import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd.graph import saved_tensors_hooks
from ember.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, CheckpointWrapper, apply_activation_checkpointing, checkpoint_wrapper)
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


class Block(nn.Module):
    """A transformer-block-like module: norm, two linears, GELU, dropout, residual."""

    def __init__(self, d, p=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 2 * d)
        self.down = nn.Linear(2 * d, d)
        self.drop = nn.Dropout(p)
        self.calls = 0

    def forward(self, x, scale=1.0):
        self.calls += 1
        return x + scale * self.drop(self.down(F.gelu(self.up(self.norm(x)))))


class Net(nn.Module):
    def __init__(self, d=6, n=3, p=0.0):
        super().__init__()
        self.embed = nn.Linear(4, d)
        self.blocks = nn.ModuleList([Block(d, p) for _ in range(n)])
        self.head = nn.Linear(d, 2)

    def forward(self, x):
        h = self.embed(x)
        for b in self.blocks:
            h = b(h)
        return self.head(h)


def make_net(p=0.0):
    torch.manual_seed(0)
    return Net(p=p).double()


def grads(module):
    return {n: p.grad.clone() for n, p in module.named_parameters()}


def run_step(model, x, seed=1):
    torch.manual_seed(seed)
    x = x.clone().requires_grad_(True)
    loss = model(x).pow(2).sum()
    loss.backward()
    return loss.detach(), x.grad, grads(model)


def assert_same_grads(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def mlp(w1, w2):
    def f(x):
        return torch.tanh(x @ w1).sin() @ w2
    return f


def params(seed=0):
    torch.manual_seed(seed)
    w1 = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    w2 = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    return w1, w2, x


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_equal_the_plain_run_exactly(use_reentrant):
    w1, w2, x = params()
    mlp(w1, w2)(x).sum().backward()
    plain = [t.grad.clone() for t in (w1, w2, x)]
    for t in (w1, w2, x):
        t.grad = None
    out = checkpoint(mlp(w1, w2), x, use_reentrant=use_reentrant)
    out.sum().backward()
    for t, g in zip((w1, w2, x), plain):
        assert torch.equal(t.grad, g)


def test_the_function_runs_again_in_backward_and_only_then():
    w1, w2, x = params()
    calls = []

    def f(x):
        calls.append(torch.is_grad_enabled())
        return mlp(w1, w2)(x)

    out = checkpoint(f, x)
    assert len(calls) == 1
    out.sum().backward()
    assert calls == [True, True]
    # Without grad mode there is nothing to recompute later.
    with torch.no_grad():
        checkpoint(f, x)
    assert calls == [True, True, False]


def count_saved(fn):
    """How many tensors the graph of fn() keeps for backward (each goes through pack)."""
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = fn()
    return len(packed), out


def test_the_checkpointed_graph_keeps_fewer_tensors():
    model = make_net()
    x = torch.randn(3, 4, dtype=torch.float64)
    plain, _ = count_saved(lambda: model(x))
    blocks_only, _ = count_saved(lambda: model.head(model.embed(x)))
    apply_activation_checkpointing(model, check_fn=lambda m: isinstance(m, Block))
    checkpointed, out = count_saved(lambda: model(x))
    # The blocks save nothing into the graph; the rest saves what it saved before.
    assert checkpointed == blocks_only < plain
    out.pow(2).sum().backward()  # and the backward still works


def test_dropout_draws_the_same_mask_on_recompute():
    torch.manual_seed(0)
    w = torch.randn(50, 50, dtype=torch.float64, requires_grad=True)
    x = torch.randn(8, 50, dtype=torch.float64)

    def f(x):
        return F.dropout(x @ w, p=0.5, training=True).tanh()

    torch.manual_seed(3)
    f(x).sum().backward()
    plain, after_plain = w.grad.clone(), torch.rand(3)
    w.grad = None
    torch.manual_seed(3)
    checkpoint(f, x, use_reentrant=False).sum().backward()
    assert torch.equal(w.grad, plain)
    # The recompute put the surrounding RNG state back: the stream goes on as without it.
    assert torch.equal(torch.rand(3), after_plain)
    # preserve_rng_state=False is not ignored: the recompute draws another mask.
    w.grad = None
    torch.manual_seed(3)
    checkpoint(f, x, use_reentrant=False, preserve_rng_state=False).sum().backward()
    assert not torch.equal(w.grad, plain)


def test_non_tensor_arguments_keywords_and_outputs():
    w1, w2, x = params()

    def f(x, scale, tag, *, power=1):
        y = mlp(w1, w2)(x) * scale
        return y ** power, tag, {"n": 3}

    y, tag, extra = checkpoint(f, x, 0.5, "t", power=2, use_reentrant=False)
    assert tag == "t" and extra == {"n": 3}
    y.sum().backward()
    got = [t.grad.clone() for t in (w1, w2, x)]
    for t in (w1, w2, x):
        t.grad = None
    f(x, 0.5, "t", power=2)[0].sum().backward()
    for t, g in zip((w1, w2, x), got):
        assert torch.equal(t.grad, g)


def test_tuple_outputs_keep_every_tensor_in_the_graph():
    w1, w2, x = params()
    a, b = checkpoint(lambda x: (x @ w1, (x @ w1).cos() @ w2), x, use_reentrant=False)
    (a.sum() + b.sum()).backward()
    ga = [t.grad.clone() for t in (w1, w2, x)]
    for t in (w1, w2, x):
        t.grad = None
    ((x @ w1).sum() + ((x @ w1).cos() @ w2).sum()).backward()
    for t, g in zip((w1, w2, x), ga):
        assert torch.equal(t.grad, g)


def test_reentrant_refuses_keywords_as_pytorch_does():
    w1, w2, x = params()
    with pytest.raises(ValueError, match="Unexpected keyword arguments: power"):
        checkpoint(lambda x, power=1: x, x, power=2)


def test_reentrant_without_inputs_requiring_grad_warns_and_still_gives_gradients():
    w1, w2, x = params()
    x = x.detach()
    mlp(w1, w2)(x).sum().backward()
    plain = [w1.grad.clone(), w2.grad.clone()]
    w1.grad = w2.grad = None
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(mlp(w1, w2), x)
    out.sum().backward()
    assert torch.equal(w1.grad, plain[0]) and torch.equal(w2.grad, plain[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # use_reentrant=False has nothing to warn about
        checkpoint(mlp(w1, w2), x, use_reentrant=False)


def test_autograd_grad_through_a_checkpoint():
    w1, w2, x = params()
    out = checkpoint(mlp(w1, w2), x)
    gx, gw = torch.autograd.grad(out.sum(), (x, w1))
    ex, ew = torch.autograd.grad(mlp(w1, w2)(x).sum(), (x, w1))
    assert torch.equal(gx, ex) and torch.equal(gw, ew)


def test_errors_are_clear():
    w1, w2, x = params()
    with pytest.raises(TypeError, match="callable"):
        checkpoint(3, x)
    # A function that computes another graph when recomputed.
    runs = []

    def changing(x):
        runs.append(1)
        return (x @ w1).tanh() if len(runs) == 1 else (x @ w1)

    out = checkpoint(changing, x)
    with pytest.raises(RuntimeError, match="same graph"):
        out.sum().backward()

    # An exception of the recompute reaches backward's caller with its class.
    class Boom(Exception):
        pass

    def fails_later(x):
        runs.append(2)
        if runs.count(2) > 1:
            raise Boom("recompute failed")
        return (x @ w1).tanh()

    out = checkpoint(fails_later, x)
    with pytest.raises(Boom, match="recompute failed"):
        out.sum().backward()


def test_checkpoint_sequential():
    torch.manual_seed(0)
    seq = nn.Sequential(*[m for _ in range(3) for m in (nn.Linear(5, 5), nn.Tanh())]).double()
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    seq(x).sum().backward()
    plain, gx = grads(seq), x.grad.clone()
    seq.zero_grad()
    x.grad = None
    calls = []
    seq[0].register_forward_hook(lambda *a: calls.append(1))
    out = checkpoint_sequential(seq, 2, x)
    out.sum().backward()
    assert_same_grads(grads(seq), plain)
    assert torch.equal(x.grad, gx)
    assert len(calls) == 2  # the first segment ran again in backward
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential(seq, 0, x)
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential(seq, 7, x)


def test_apply_activation_checkpointing_wraps_exactly_the_matches():
    model = make_net()
    keys = list(model.state_dict().keys())
    apply_activation_checkpointing(model, check_fn=lambda m: isinstance(m, Block))
    assert [type(b) for b in model.blocks] == [CheckpointWrapper] * 3
    assert type(model.embed) is nn.Linear and type(model.head) is nn.Linear
    assert all(type(b._checkpoint_wrapped_module) is Block for b in model.blocks)
    assert list(model.state_dict().keys()) == keys
    # The wrapper names its parameters as the block does; the root keeps 1.13's full path.
    assert [n for n, _ in model.blocks[0].named_parameters()] == [
        n for n, _ in Block(6).named_parameters()]
    assert "blocks.0._checkpoint_wrapped_module.up.weight" in dict(model.named_parameters())
    # Attributes reach the wrapped block.
    assert model.blocks[0].up is model.blocks[0]._checkpoint_wrapped_module.up
    with pytest.raises(ValueError, match="checkpointed already"):
        apply_activation_checkpointing(model, check_fn=lambda m: isinstance(m, Block))


@pytest.mark.parametrize("impl", [CheckpointImpl.REENTRANT, CheckpointImpl.NO_REENTRANT])
def test_checkpointed_model_trains_as_the_plain_one(impl):
    x = torch.randn(3, 4, dtype=torch.float64)
    plain = make_net(p=0.3)
    loss0, gx0, g0 = run_step(plain, x)
    model = make_net(p=0.3)
    apply_activation_checkpointing(
        model, checkpoint_wrapper_fn=lambda m: checkpoint_wrapper(m, checkpoint_impl=impl),
        check_fn=lambda m: isinstance(m, Block))
    loss1, gx1, g1 = run_step(model, x)
    assert torch.equal(loss0, loss1) and torch.equal(gx0, gx1)
    assert {k.replace("._checkpoint_wrapped_module", ""): v for k, v in g1.items()}.keys() == g0.keys()
    for k, v in g1.items():
        assert torch.equal(v, g0[k.replace("._checkpoint_wrapped_module", "")]), k
    # Each block ran twice: once in the forward, once in the backward.
    assert [b.calls for b in model.blocks] == [2, 2, 2]


def test_state_dicts_move_between_plain_and_checkpointed_models():
    plain = make_net()
    wrapped = make_net()
    apply_activation_checkpointing(wrapped, check_fn=lambda m: isinstance(m, Block))
    for p in plain.parameters():
        p.data.add_(1.0)
    wrapped.load_state_dict(plain.state_dict())
    for (k, a), (_, b) in zip(plain.state_dict().items(), wrapped.state_dict().items()):
        assert torch.equal(a, b), k
    other = make_net()
    assert other.load_state_dict(wrapped.state_dict()) is not None
    assert torch.equal(other.blocks[1].up.weight, plain.blocks[1].up.weight)


@pytest.mark.parametrize("impl", [CheckpointImpl.REENTRANT, CheckpointImpl.NO_REENTRANT])
def test_wrapper_passes_keywords(impl):
    torch.manual_seed(0)
    block = Block(4).double()
    x = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    scale = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    block(x, scale=scale).sum().backward()
    plain = grads(block), x.grad.clone(), scale.grad.clone()
    block.zero_grad()
    x.grad = scale.grad = None
    wrapped = checkpoint_wrapper(block, checkpoint_impl=impl)
    wrapped(x, scale=scale).sum().backward()
    assert_same_grads(grads(block), plain[0])
    assert torch.equal(x.grad, plain[1]) and torch.equal(scale.grad, plain[2])


def test_wrapper_offload_and_custom_checkpoint_fn():
    torch.manual_seed(0)
    block = Block(4).double()
    x = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    block(x).sum().backward()
    plain = grads(block)
    block.zero_grad()
    offloaded = checkpoint_wrapper(block, offload_to_cpu=True)
    offloaded(x).sum().backward()
    assert_same_grads(grads(block), plain)
    assert block.calls == 2  # kept, not recomputed

    seen = []

    def my_checkpoint(fn, *args, **kwargs):
        seen.append((args[1:], kwargs))
        return checkpoint(fn, args[0], use_reentrant=False)

    block.zero_grad()
    custom = checkpoint_wrapper(block, CheckpointImpl.NO_REENTRANT, False, my_checkpoint, "extra",
                                flag=True)
    custom(x).sum().backward()
    assert seen == [(("extra",), {"flag": True})]
    assert_same_grads(grads(block), plain)
    with pytest.raises(ValueError, match="offload_to_cpu"):
        checkpoint_wrapper(block, offload_to_cpu=True, checkpoint_fn=my_checkpoint)
    with pytest.raises(TypeError, match="nn.Module"):
        checkpoint_wrapper(lambda x: x)


def test_wrapper_copies_and_indexes():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    wrapped = checkpoint_wrapper(seq)
    assert wrapped[0] is seq[0]
    clone = copy.deepcopy(wrapped)
    assert type(clone) is CheckpointWrapper and clone[0] is not seq[0]


def test_saved_tensors_hooks_checks_what_unpack_returns():
    x = torch.ones(3, requires_grad=True)
    with saved_tensors_hooks(lambda t: "packed", lambda p: p):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook"):
        y.backward()
    with pytest.raises(TypeError, match="callable"):
        saved_tensors_hooks(None, None)
