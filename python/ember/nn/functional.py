"""torch.nn.functional: the C++ functional ops (ember._C._nn: convolution, pooling,
normalization, dropout, embedding, attention, losses) with PyTorch's signatures, and the
activations, which are tensor ops."""

from .. import _C
from .._C._nn import (  # noqa: F401
    linear, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, avg_pool1d, avg_pool2d, batch_norm,
    layer_norm, group_norm, rms_norm, embedding,
    scaled_dot_product_attention, cosine_similarity, pairwise_distance, pad, interpolate,
    cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy,
    binary_cross_entropy_with_logits, kl_div, cosine_embedding_loss, margin_ranking_loss,
    triplet_margin_loss, one_hot,
)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats:  # PyTorch's _verify_spatial_size: a ValueError, raised here as there
        size = input.size()
        spatial = 1
        for s in size[2:]:
            spatial *= s
        if len(size) >= 2 and spatial == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input size "
                             "{}".format(size))
    return _C._nn.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                                momentum, eps)


def prelu(input, weight):
    return _C._nn.prelu(input, weight)


def _inplace(input, result, inplace):
    return input.copy_(result) if inplace else result


def dropout(input, p=0.5, training=True, inplace=False):
    return _C._nn.dropout(input, p, training, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _C._nn.dropout1d(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _C._nn.dropout2d(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _C._nn.dropout3d(input, p, training, inplace)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out, idx = _C._nn.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    out, idx = _C._nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def _fill_none(input, output_size):
    """PyTorch's None in an adaptive output size: that dim keeps the input's size."""
    if isinstance(output_size, (tuple, list)) and any(s is None for s in output_size):
        sizes = input.shape[-len(output_size):]
        return tuple(sizes[i] if s is None else s for i, s in enumerate(output_size))
    return output_size


def adaptive_avg_pool1d(input, output_size):
    return _C._nn.adaptive_avg_pool1d(input, _fill_none(input, output_size))


def adaptive_avg_pool2d(input, output_size):
    return _C._nn.adaptive_avg_pool2d(input, _fill_none(input, output_size))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out, idx = _C._nn.adaptive_max_pool1d_with_indices(input, _fill_none(input, output_size))
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out, idx = _C._nn.adaptive_max_pool2d_with_indices(input, _fill_none(input, output_size))
    return (out, idx) if return_indices else out


# ── activations ──
def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu6(input, inplace=False):
    return _inplace(input, _C.relu6(input), inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace(input, _C.leaky_relu(input, negative_slope), inplace)


def elu(input, alpha=1.0, inplace=False):
    return _inplace(input, _C.elu(input, alpha), inplace)


def selu(input, inplace=False):
    return _inplace(input, _C.selu(input), inplace)


def celu(input, alpha=1.0, inplace=False):
    # celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    return _inplace(input, _C.clamp(input, min=0) + _C.clamp(alpha * _C.expm1(input / alpha), max=0), inplace)


def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return _inplace(input, _C.silu(input), inplace)


def hardshrink(input, lambd=0.5):
    return _C.hardshrink(input, lambd)


def mish(input, inplace=False):
    return _inplace(input, _C.mish(input), inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _inplace(input, _C.hardtanh(input, min_val, max_val), inplace)


def hardsigmoid(input, inplace=False):
    return _inplace(input, _C.hardsigmoid(input), inplace)


def hardswish(input, inplace=False):
    return _inplace(input, _C.hardswish(input), inplace)


def softplus(input, beta=1, threshold=20):
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    return -_C.softplus(-input)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - input.tanh()


def threshold(input, threshold, value, inplace=False):
    return _inplace(input, _C.where(input > threshold, input, value), inplace)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def glu(input, dim=-1):
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def _softmax_dim(ndim):
    # PyTorch's implicit dim (deprecated there too): 0 for 0-, 1- and 3-d inputs, else 1.
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.softmax(input, _softmax_dim(input.dim()) if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return _C.log_softmax(input, _softmax_dim(input.dim()) if dim is None else dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    r = input / denom
    return r if out is None else out.copy_(r)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.nn.functional' has no attribute '%s': "
                         "torch.nn.functional.%s is not in ember" % (name, name))
