"""Bad input from Python gets PyTorch's exception class with ember's message, and no input
crashes the interpreter: a seeded fuzz of the argument parser (wrong types, huge and negative
ints, NaN and infinite sizes, deep nesting, odd objects) over factories, methods and indexing."""
import math
import os
import random
import subprocess
import sys

import pytest

import ember as torch


def test_exception_classes_match_pytorch():
    a = torch.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"\[view\]"):
        a.T.view(6)
    with pytest.raises(RuntimeError):
        a + torch.ones(4)
    with pytest.raises(IndexError):
        a[5]
    with pytest.raises(IndexError):
        a.sum(dim=7)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        torch.zeros("3")
    with pytest.raises(TypeError):
        a.view("x")
    with pytest.raises(ValueError, match="only one element"):
        float(a)
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(a)
    with pytest.raises(TypeError, match="0-d"):
        len(torch.tensor(1.0))
    with pytest.raises(RuntimeError, match="Overflow"):
        torch.zeros(2 ** 70)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        torch.sqrt("x")  # the accepted signatures are listed in the message


def nested(depth):
    v = 1.0
    for _ in range(depth):
        v = [v]
    return v


# Sizes that are valid but need gigabytes (2**31 floats) are left out: like PyTorch, ember then
# allocates, and the machine's memory is the limit. 2**40 elements fail to allocate cleanly.
ODD_VALUES = [
    None, True, -1, 0, 3, 2 ** 40, 2 ** 63, -(2 ** 63) - 1, 2 ** 100, float("nan"), float("inf"),
    -0.0, 1e300, "a", b"b", 1j, [], [1, [2]], (), (1, -2), {"a": 1}, {1, 2}, object(), slice(1, 2),
    Ellipsis, nested(5), nested(200), [float("nan")] * 3, torch.ones(2), torch.tensor(2),
    torch.ones(0), torch.ones(2, dtype=torch.bool), type, lambda: 0,
]
OK_ERRORS = (TypeError, ValueError, RuntimeError, IndexError, OverflowError, AttributeError)


def calls():
    t = torch.arange(12.0).reshape(3, 4)
    yield "zeros", lambda *a: torch.zeros(*a)
    yield "full", lambda *a: torch.full(*a)
    yield "arange", lambda *a: torch.arange(*a)
    yield "randint", lambda *a: torch.randint(*a)
    yield "tensor", lambda *a: torch.tensor(*a)
    yield "view", lambda *a: t.view(*a)
    yield "reshape", lambda *a: t.reshape(*a)
    yield "sum", lambda *a: t.sum(*a)
    yield "max", lambda *a: t.max(*a)
    yield "getitem", lambda *a: t[a[0] if len(a) == 1 else a]
    yield "setitem", lambda *a: t.__setitem__(a[0], a[-1])
    yield "add", lambda *a: t.add(*a)
    yield "clamp", lambda *a: t.clamp(*a)
    yield "to", lambda *a: t.to(*a)
    yield "permute", lambda *a: t.permute(*a)
    yield "expand", lambda *a: t.expand(*a)
    yield "gather", lambda *a: t.gather(*a)
    yield "linspace", lambda *a: torch.linspace(*a)
    yield "empty_strided", lambda *a: torch.empty_strided(*a)
    yield "as_strided", lambda *a: t.as_strided(*a)


@pytest.mark.parametrize("name,call", list(calls()), ids=[n for n, _ in calls()])
def test_fuzzed_arguments_never_crash(name, call):
    rng = random.Random(hash(name) & 0xFFFF)
    for _ in range(300):
        args = [rng.choice(ODD_VALUES) for _ in range(rng.randint(0, 3))]
        try:
            result = call(*args)
        except OK_ERRORS:
            continue
        except MemoryError:
            continue
        if isinstance(result, torch.Tensor):  # a result must be a usable tensor
            result.shape, repr(result) if result.numel() < 1000 else None


def test_huge_and_invalid_sizes_are_errors_not_allocations():
    for size in [(-1,), (2 ** 40, 2 ** 40), (math.inf,), (float("nan"),), (1, -5)]:
        with pytest.raises(OK_ERRORS):
            torch.zeros(size)


def test_deep_nesting_is_refused_cleanly():
    with pytest.raises(ValueError, match="nesting"):
        torch.tensor(nested(500))


def test_allocation_limit_refuses_a_larger_allocation_as_out_of_memory():
    """EMBER_CPU_ALLOCATION_LIMIT_MB, the memory bound of the libFuzzer argument fuzzer
    (tests/fuzz/python_args_fuzzer.cpp): a larger allocation is refused, a smaller one runs."""
    code = ("import ember\n"
            "assert ember.zeros(1000).sum().item() == 0\n"
            "try:\n"
            "    ember.zeros(1 << 20)\n"
            "except RuntimeError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, EMBER_CPU_ALLOCATION_LIMIT_MB="2")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "out of memory: could not allocate 4194304 bytes" in out.stdout, out.stdout
    assert "EMBER_CPU_ALLOCATION_LIMIT_MB" in out.stdout
