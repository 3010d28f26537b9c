"""TransformerEncoderLayer and TransformerEncoder (PyTorch 1.13)."""
import copy

from ... import _C
from .. import functional as F
from .activation import MultiheadAttention, ReLU, GELU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoder", "TransformerEncoderLayer"]


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    elif activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(activation))


def _attention(attn, x, memory, attn_mask, key_padding_mask):
    """The attention block of a transformer layer: x attends to memory (itself for self-attention)."""
    return attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                need_weights=False)[0]


def _feed_forward(layer, x):
    """The feed-forward block of a transformer layer, before its last dropout."""
    return layer.linear2(layer.dropout(layer.activation(layer.linear1(x))))


def _check_padding_mask(mask):
    if mask is not None and mask.dtype != _C.bool and not mask.is_floating_point():
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with dropout, a residual connection and a
    LayerNorm (after it, or before it with norm_first=True). activation: "relu" (the default,
    F.relu), "gelu" or a callable."""

    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        # PyTorch's fused fast path (eval, no grad) computes the same function.
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        return self.dropout1(_attention(self.self_attn, x, x, attn_mask, key_padding_mask))

    def _ff_block(self, x):
        return self.dropout2(_feed_forward(self, x))


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer, then the optional norm."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def _nested_lengths(self, src, mask, src_key_padding_mask):
        """PyTorch 1.13 runs the layers on a nested tensor (and pads the result with zeros, to
        the longest sequence) when all of its fast-path conditions hold: then the valid lengths,
        else None."""
        first = self.layers[0]
        if not isinstance(first, TransformerEncoderLayer) or first.norm_first or first.training:
            return None
        attn = first.self_attn
        if not attn.batch_first or not attn._qkv_same_embed_dim or not first.activation_relu_or_gelu:
            return None
        if first.norm1.eps != first.norm2.eps or src.dim() != 3 or not self.enable_nested_tensor:
            return None
        if src_key_padding_mask is None or mask is not None or attn.num_heads % 2 == 1:
            return None
        if src_key_padding_mask.dtype != _C.bool:
            return None
        keep = src_key_padding_mask.logical_not()
        lengths = keep.sum(dim=1)
        # Left aligned: every row is some True values followed by False values only.
        positions = _C.arange(keep.shape[1]).unsqueeze(0)
        if not bool((keep == (positions < lengths.unsqueeze(1))).all()):
            return None
        tensors = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                   attn.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
                   first.norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight,
                   first.linear2.bias)
        if _C.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
            return None
        return lengths

    def forward(self, src, mask=None, src_key_padding_mask=None):
        _check_padding_mask(src_key_padding_mask)
        output = src
        lengths = self._nested_lengths(src, mask, src_key_padding_mask)
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if lengths is not None:
            # nested -> padded: zeros past each sequence's end, cut to the longest sequence.
            longest = int(lengths.max())
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)[:, :longest]
        if self.norm is not None:
            output = self.norm(output)
        return output
