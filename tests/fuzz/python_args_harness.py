"""The Python front door's argument fuzzer (driven by python_args_fuzzer.cpp): each input
decodes into one call — a factory of `ember`, a Tensor method or an `ember.nn.functional`
function — with fuzzed positional and keyword arguments: None, bools, small and 64-bit integers,
integers past int64, floats (NaN, infinities, -0.0), strings, tuples, lists, dicts, slices,
Ellipsis, tensors of several dtypes and layouts, dtypes, devices, and objects no op takes.

A correct answer is a result, or an exception of a class PyTorch raises for bad arguments, with
a message (AttributeError included: PyTorch's functionals written in Python raise it for an
argument that is not a tensor, `F.normalize(None)`, and ember's do the same). Anything else — SystemError (a C function returned NULL without an exception, or the
reverse), another exception class, an empty message — raises FuzzFinding, and the host aborts
so libFuzzer keeps the input.
"""
import math
import struct

import ember
import ember.nn.functional as F

ALLOWED = (AttributeError, TypeError, ValueError, IndexError, RuntimeError, OverflowError, NotImplementedError,
           KeyError, ZeroDivisionError, MemoryError)

# What the calls draw from. Global-state setters (manual_seed, set_default_dtype,
# set_grad_enabled, ...) are left out so that every input replays alone as it ran.
FACTORIES = ['zeros', 'ones', 'empty', 'full', 'arange', 'linspace', 'logspace', 'tensor',
             'as_tensor', 'eye', 'zeros_like', 'ones_like', 'full_like', 'empty_like', 'rand',
             'randn', 'randint', 'randperm', 'cat', 'stack', 'where', 'broadcast_tensors',
             'meshgrid', 'einsum', 'tril_indices', 'triu_indices', 'device', 'Size', 'dtype',
             'from_numpy', 'is_tensor', 'numel', 'flatten', 'split', 'chunk', 'max', 'min',
             'sort', 'topk', 'clamp', 'cumsum', 'gather', 'index_select', 'masked_select']
METHODS = ['view', 'reshape', 'permute', 'transpose', 'expand', 'narrow', 'select',
           'index_select', 'gather', 'scatter', 'scatter_add', 'squeeze', 'unsqueeze', 'flatten',
           'repeat', 'sum', 'mean', 'amax', 'max', 'min', 'std', 'var', 'norm', 'to', 'type',
           'add', 'sub', 'mul', 'div', 'clamp', 'pow', 'matmul', 'topk', 'sort', 'split',
           'chunk', '__getitem__', '__setitem__', 'index_put_', 'masked_fill', 'new_zeros',
           'new_full', 'new_tensor', 'fill_', 'copy_', 'unfold', 'diagonal', 'roll', 'flip',
           'cumsum', 'softmax', 'argmax', 'all', 'any', 'tolist', 'item', 'masked_select',
           'nonzero', 'unique', 'expand_as', 'view_as', 'as_strided', 'clone', 'requires_grad_',
           'backward', 'size', 'stride', 'dim', 'float', 'long', 'bool', 'half', 'bfloat16',
           'index_add_', 'index_fill_', 'masked_scatter_', 'repeat_interleave', 'movedim',
           'tile', 't', 'mT', '__add__', '__mul__', '__truediv__', '__floordiv__', '__mod__',
           '__pow__', '__lshift__', '__and__', '__eq__', '__lt__', '__iadd__', '__format__',
           '__len__', '__iter__', '__contains__', 'numpy', 'storage_offset', 'is_contiguous']
FUNCTIONS = ['pad', 'softmax', 'log_softmax', 'cross_entropy', 'nll_loss', 'mse_loss', 'l1_loss',
             'linear', 'conv1d', 'conv2d', 'max_pool2d', 'avg_pool2d', 'adaptive_avg_pool2d',
             'interpolate', 'embedding', 'one_hot', 'dropout', 'relu', 'gelu', 'layer_norm',
             'batch_norm', 'group_norm', 'normalize', 'binary_cross_entropy', 'smooth_l1_loss',
             'unfold', 'pixel_shuffle', 'cosine_similarity', 'pairwise_distance',
             'scaled_dot_product_attention', 'leaky_relu', 'hardtanh', 'threshold', 'elu']
KEYWORDS = ['dim', 'keepdim', 'dtype', 'device', 'out', 'size', 'index', 'value', 'alpha',
            'requires_grad', 'p', 'k', 'bias', 'weight', 'mode', 'reduction', 'input', 'other',
            'stride', 'padding', 'num_classes', 'generator', 'memory_format', 'non_blocking',
            'scale_factor', 'align_corners', 'ignore_index', 'descending', 'largest', 'sorted',
            'return_counts', 'unbiased', 'correction', 'layout', 'pin_memory', 'rounding_mode']
STRINGS = ['cpu', 'cuda', 'cuda:1', 'cpu:0', 'meta', 'mean', 'sum', 'none', '', 'float32',
           'nearest', 'bilinear', 'reflect', 'circular', 'floor', 'trunc', 'ij', 'xy',
           'ii->i', 'ij,jk->ik', '...', '\x00', '\u00e9t\u00e9', 'torch.FloatTensor']
DTYPES = [ember.float32, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.int32,
          ember.int16, ember.int8, ember.uint8, ember.bool]
FACTORIES = [getattr(ember, n) for n in FACTORIES if hasattr(ember, n)]
FUNCTIONS = [getattr(F, n) for n in FUNCTIONS if hasattr(F, n)]


class FuzzFinding(Exception):
    pass


class Reader:
    """The input as a stream; past its end every read is zero."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def pick(self, seq):
        return seq[self.byte() % len(seq)]

    def raw(self, n):
        chunk = self.data[self.pos:self.pos + n].ljust(n, b'\0')
        self.pos += n
        return chunk

    def int64(self):
        return int.from_bytes(self.raw(8), 'little', signed=True)

    def float64(self):
        return struct.unpack('<d', self.raw(8))[0]


def tensors():
    """A fresh pool per input (in-place calls change their operands): contiguous and strided,
    0-d and empty, integer, bool and half, one that requires grad."""
    base = ember.arange(24, dtype=ember.float32).reshape(2, 3, 4)
    leaf = ember.linspace(-1, 1, 9).reshape(3, 3).requires_grad_()
    return [base, base.transpose(0, 2), base[:, 1], ember.arange(6), ember.tensor(3.5),
            ember.tensor([True, False, True]), ember.zeros(0, 3), ember.tensor([[0, 1], [2, 0]]),
            leaf, leaf * 2, base.half(), ember.tensor([1, 2, 3], dtype=ember.uint8)]


def value(r, pool, depth=0):
    kind = r.byte() % 16
    if kind >= 8 and kind <= 11 and depth >= 3:
        kind = 2  # containers nest at most three deep
    if kind == 0:
        return None
    if kind == 1:
        return bool(r.byte() & 1)
    if kind == 2:
        return r.byte() % 17 - 8  # the dims and sizes ops meet most
    if kind == 3:
        return r.int64()
    if kind == 4:
        return (-1 if r.byte() & 1 else 1) * (1 << (63 + r.byte() % 8)) + r.byte() - 128
    if kind == 5:
        return r.float64()
    if kind == 6:
        return r.pick([math.nan, math.inf, -math.inf, -0.0, 0.5, 1e308, 2.0 ** 63, 1e-320])
    if kind == 7:
        return r.pick(STRINGS)
    if kind in (8, 9):
        items = [value(r, pool, depth + 1) for _ in range(r.byte() % 5)]
        return tuple(items) if kind == 8 else items
    if kind == 10:
        return {r.pick(KEYWORDS): value(r, pool, depth + 1) for _ in range(r.byte() % 3)}
    if kind == 11:
        return slice(value(r, pool, 3), value(r, pool, 3), value(r, pool, 3))
    if kind == 12:
        return Ellipsis
    if kind == 13:
        return r.pick(pool)
    if kind == 14:
        return r.pick(DTYPES)
    return r.pick([ember.device('cpu'), ember.Size([2, 3]), object(), 1j, b'ab', range(3),
                   ember.float32, [[1, 2], [3]], [ember.tensor(1.0), 2]])


def target(r, pool):
    """The callable and its name: a factory, a method of a pool tensor, or a functional."""
    family = r.byte() % 3
    if family == 0:
        fn = r.pick(FACTORIES)
        return fn, 'ember.' + getattr(fn, '__name__', repr(fn))
    if family == 1:
        t, name = r.pick(pool), r.pick(METHODS)
        try:
            return getattr(t, name), 'Tensor.' + name
        except ALLOWED:  # a property refused for this tensor (mT of a vector)
            return None, name
    fn = r.pick(FUNCTIONS)
    return fn, 'F.' + fn.__name__


def run(data):
    r = Reader(data)
    pool = tensors()
    fn, name = target(r, pool)
    if fn is None:
        return
    args = [value(r, pool) for _ in range(r.byte() % 5)]
    kwargs = {r.pick(KEYWORDS): value(r, pool) for _ in range(r.byte() % 3)}
    try:
        result = fn(*args, **kwargs)
        if hasattr(result, '__next__'):
            list(result)
    except ALLOWED as e:
        if not str(e) and not isinstance(e, MemoryError):
            raise FuzzFinding(f'{name}(*{args!r}, **{kwargs!r}) raised {type(e).__name__} '
                              'with no message') from e
    except BaseException as e:
        raise FuzzFinding(f'{name}(*{args!r}, **{kwargs!r}) raised {type(e).__name__}: {e}') \
            from e
