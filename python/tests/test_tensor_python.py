"""Tensor features beyond the golden table: out=, generators and RNG state, identity of Python
objects, dtype and device objects, pickling of small objects, threads."""
import copy
import pickle

import pytest

import ember as torch


def test_out_writes_resizes_and_refuses_what_pytorch_refuses():
    a = torch.ones(3)
    out = torch.empty(0)
    r = torch.add(a, a, out=out)
    assert r is out and out.tolist() == [2.0, 2.0, 2.0]
    assert torch.mul(a, 3, out=torch.empty(3, dtype=torch.float64)).dtype == torch.float64
    assert torch.sum(a, out=torch.empty(5)).shape == ()
    assert torch.cat([a, a], out=torch.zeros(6)).tolist() == [1.0] * 6
    assert torch.zeros(2, 2, out=torch.empty(0)).shape == (2, 2)
    assert torch.arange(4, out=torch.empty(0, dtype=torch.int64)).tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.add(a, a, out=torch.zeros(3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.empty(2))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        torch.add(a, a, bogus=1)


def test_generators_and_rng_state_reproduce_streams():
    torch.manual_seed(3)
    first = torch.randn(5)
    state = torch.get_rng_state()
    second = torch.randn(5)
    torch.set_rng_state(state)
    assert torch.randn(5).tolist() == second.tolist()
    torch.manual_seed(3)
    assert torch.randn(5).tolist() == first.tolist()
    g = torch.Generator().manual_seed(3)
    assert torch.randn(5, generator=g).tolist() == first.tolist()
    assert torch.initial_seed() == 3


def test_dtype_and_device_objects():
    assert torch.float32 is torch.float and torch.int64 is torch.long
    assert torch.ones(1).dtype is torch.float32
    assert repr(torch.bfloat16) == "torch.bfloat16" and torch.float16.is_floating_point
    assert pickle.loads(pickle.dumps(torch.device("cpu"))) == torch.device("cpu")
    assert repr(torch.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert str(torch.device("cpu")) == "cpu" and torch.device("cpu").index is None
    assert {torch.device("cpu"): 1}[torch.device("cpu")] == 1
    with pytest.raises(RuntimeError):
        torch.device("tpu")


def test_size_is_a_tuple_with_pytorchs_repr():
    s = torch.ones(2, 3).shape
    assert isinstance(s, tuple) and s == (2, 3) and repr(s) == "torch.Size([2, 3])"
    assert s.numel() == 6 and isinstance(s[:1], torch.Size) and s[-1] == 3
    assert pickle.loads(pickle.dumps(s)) == s


def test_one_python_object_per_tensor():
    x = torch.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad is x.grad
    y = x.detach()
    assert y is not x and y.data_ptr() == x.data_ptr()
    t = torch.arange(4)
    assert t[...] is not t
    assert hash(t) == hash(t) and len({t, t}) == 1


def test_deepcopy_and_pickle_copy_values():
    t = torch.arange(6.0).reshape(2, 3).requires_grad_()
    t.tag = "kept"
    c = copy.deepcopy(t)
    assert c is not t and c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    assert c.requires_grad and c.is_leaf and c.tag == "kept"
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(t * 2)
    for dtype in [torch.float32, torch.bfloat16, torch.int16, torch.bool, torch.float16]:
        u = torch.arange(4).to(dtype).reshape(2, 2).T
        back = pickle.loads(pickle.dumps(u))
        assert back.dtype == dtype and back.tolist() == u.tolist()


def test_format_and_item_conversions():
    x = torch.tensor(3.14159)
    assert f"{x:.2f}" == "3.14"
    assert int(torch.tensor(7)) == 7 and float(torch.tensor([2.5])) == 2.5
    assert [1, 2, 3][torch.tensor(1)] == 2  # __index__
    with pytest.raises(TypeError):
        [1, 2][torch.tensor(1.0)]
    assert 2 in torch.tensor([1, 2, 3]) and 5 not in torch.tensor([1, 2, 3])


def test_in_place_shape_changes_keep_the_object_and_pytorchs_nodes():
    # PyTorch 1.13's node names and gradients (checked there with the same calls).
    a = torch.arange(6.0).view(2, 1, 3)
    assert a.unsqueeze_(0) is a and a.shape == (1, 2, 1, 3)
    assert a.squeeze_() is a and a.shape == (2, 3)
    assert a.t_() is a and a.shape == (3, 2) and a.stride() == (1, 3)
    assert a.transpose_(0, 1) is a and a.stride() == (3, 1)
    assert a.squeeze_(dim=0).shape == (2, 3)
    assert a.swapaxes_(0, 1).shape == (3, 2)
    for call, node in [(lambda t: t.unsqueeze_(0), "UnsqueezeBackward1"),
                       (lambda t: t.squeeze_(), "SqueezeBackward2"),
                       (lambda t: t.squeeze_(1), "SqueezeBackward3"),
                       (lambda t: t.transpose_(0, 2), "TransposeBackward1")]:
        leaf = torch.arange(6.0).view(2, 1, 3).requires_grad_()
        b = leaf * torch.tensor([1.0, 2.0, 3.0])
        call(b)
        assert b.grad_fn.name() == node
        (b * b).sum().backward()
        assert leaf.grad.view(-1).tolist() == [0.0, 8.0, 36.0, 6.0, 32.0, 90.0]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        torch.zeros(3, requires_grad=True).unsqueeze_(0)
    with pytest.raises(RuntimeError, match="expects a tensor with <= 2 dimensions"):
        torch.zeros(2, 3, 4).t_()


def test_pin_memory_and_is_pinned_without_cuda():
    # PyTorch 1.13's CPU-only build: is_pinned() is False and pin_memory() is refused (there
    # NotImplementedError: no aten::_pin_memory kernel; ember raises RuntimeError saying it was
    # built without CUDA, or the CUDA error of a CUDA build on a machine without a device). A CUDA
    # build with a device pins (tests/cuda/memory_test.cpp).
    if torch.cuda.is_available():
        pytest.skip("a CUDA build with a device pins; tested in tests/cuda")
    t = torch.arange(6.0).reshape(2, 3)
    assert t.is_pinned() is False
    assert t.t().is_pinned(device="cuda") is False
    with pytest.raises(RuntimeError, match="built without CUDA|CUDA error"):
        t.pin_memory()


def test_record_stream_refuses_a_cpu_tensor_by_the_ops_name():
    # PyTorch's dispatcher has no CPU kernel for aten::record_stream: NotImplementedError naming
    # it. (ember checks the tensor before the stream, so no CUDA stream is needed to see it.)
    t = torch.zeros(3)
    with pytest.raises(NotImplementedError, match="aten::record_stream.*'CPU' backend"):
        t.record_stream(None)
    with pytest.raises(NotImplementedError, match="aten::record_stream"):
        t[1:].record_stream(object())


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks a build or machine without CUDA")
def test_cuda_streams_without_a_device_raise_naming_the_call():
    assert torch.cuda.Stream.__name__ == "Stream" and torch.cuda.Stream.__module__ == "torch.cuda"
    with pytest.raises(RuntimeError, match=r"\[cuda.Stream\]"):
        torch.cuda.Stream()
    with pytest.raises(RuntimeError, match=r"\[cuda.current_stream\]"):
        torch.cuda.current_stream()
    with pytest.raises(RuntimeError, match=r"\[cuda.default_stream\]"):
        torch.cuda.default_stream(0)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        torch.cuda.Stream(device="cpu")
    with pytest.raises(ValueError, match="priority 0 only"):
        torch.cuda.Stream(priority=-1)
    with torch.cuda.stream(None) as s:  # PyTorch's no-op context
        assert s is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_streams_and_record_stream_on_a_device():
    s = torch.cuda.Stream()
    assert s.device == torch.device("cuda:0") and s != torch.cuda.default_stream()
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    with torch.cuda.stream(s) as entered:
        assert entered is s and torch.cuda.current_stream() == s
        x = torch.ones(1 << 20, device="cuda") * 2
    assert torch.cuda.current_stream() == torch.cuda.default_stream()
    x.record_stream(s)
    s.synchronize()
    assert s.query()
    with pytest.raises(TypeError, match="record_stream"):
        x.record_stream(3)
