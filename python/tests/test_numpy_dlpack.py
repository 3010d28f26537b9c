"""NumPy and DLPack: zero-copy both ways (a write on one side shows on the other), dtypes, and
the errors PyTorch gives; DLPack with PyTorch 1.13 itself where it is installed."""
import subprocess

import numpy as np
import pytest

import ember as torch


def test_numpy_shares_memory_and_keeps_strides():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (3, 4)
    a[1, 2] = -5.0
    assert t[1, 2].item() == -5.0
    v = t.T.numpy()
    assert v.strides == (4, 16) and not v.flags["C_CONTIGUOUS"]
    del t  # the array keeps the storage alive
    assert a[1, 2] == -5.0


@pytest.mark.parametrize("dtype,np_dtype", [
    ("float64", np.float64), ("float32", np.float32), ("float16", np.float16), ("int64", np.int64),
    ("int32", np.int32), ("int16", np.int16), ("int8", np.int8), ("uint8", np.uint8), ("bool", np.bool_),
])
def test_dtypes_both_ways(dtype, np_dtype):
    a = np.array([0, 1, 0, 1], dtype=np_dtype)
    t = torch.from_numpy(a)
    assert t.dtype == getattr(torch, dtype)
    assert t.numpy().dtype == np_dtype
    assert t.tolist() == a.tolist()


def test_from_numpy_shares_memory():
    a = np.zeros((2, 3), dtype=np.float64)
    t = torch.from_numpy(a)
    t[0, 1] = 7.0
    assert a[0, 1] == 7.0
    s = torch.from_numpy(a[:, ::2])  # a strided view stays a view
    assert s.stride() == (3, 2)
    a[1, 2] = 3.0
    assert s[1, 1].item() == 3.0


def test_tensor_of_ndarray_copies():
    a = np.arange(4, dtype=np.int32)
    t = torch.tensor(a)
    a[0] = 9
    assert t.tolist() == [0, 1, 2, 3] and t.dtype == torch.int32
    assert torch.as_tensor(a).tolist() == [9, 1, 2, 3]
    assert np.asarray(torch.arange(3)).tolist() == [0, 1, 2]  # __array__


def test_numpy_errors():
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.ones(2, requires_grad=True).numpy()
    assert torch.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="BFloat16"):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    with pytest.raises(ValueError, match="negative"):
        torch.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError, match="complex128"):
        torch.from_numpy(np.zeros(2, dtype=np.complex128))
    with pytest.raises(TypeError):
        torch.from_numpy([1, 2])


def test_dlpack_with_numpy_both_ways():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    a = np.from_dlpack(t)  # NumPy marks DLPack imports read-only: write on ember's side
    t[0, 0] = 42.0
    assert a[0, 0] == 42.0 and a.shape == (2, 3)
    b = np.arange(6, dtype=np.int64).reshape(3, 2)[:, 1]
    u = torch.from_dlpack(b)
    assert u.tolist() == [1, 3, 5] and u.stride() == (2,)
    b[0] = -1
    assert u[0].item() == -1
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_capsule_is_consumed_once():
    cap = torch.utils.dlpack.to_dlpack(torch.arange(3))
    assert torch.from_dlpack(cap).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="not yet consumed"):
        torch.from_dlpack(cap)
    del cap
    unused = torch.utils.dlpack.to_dlpack(torch.arange(3))  # freed by the capsule's destructor
    del unused


def real_torch_available():
    return subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0


@pytest.mark.skipif(not real_torch_available(), reason="PyTorch (python3-torch) is not installed: "
                    "scripts/bootstrap.sh --golden installs it")
def test_dlpack_with_pytorch_both_ways():
    import torch as real  # the real PyTorch, in this process next to ember

    r = real.arange(6, dtype=real.float32).reshape(2, 3)
    e = torch.from_dlpack(r)
    assert e.tolist() == r.tolist() and e.dtype == torch.float32
    e[1, 1] = 100.0
    assert r[1, 1].item() == 100.0
    back = real.utils.dlpack.from_dlpack(torch.arange(4, dtype=torch.bfloat16) * 2)
    assert back.dtype == real.bfloat16 and back.tolist() == [0.0, 2.0, 4.0, 6.0]
    shared = torch.zeros(3)
    seen = real.from_dlpack(shared)
    shared[0] = 5.0
    assert seen[0].item() == 5.0
