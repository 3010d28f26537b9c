"""TransformerDecoderLayer and TransformerDecoder (PyTorch 1.13): self-attention over the target,
attention from the target to the encoder's output (memory), and the feed-forward block — the
Python counterpart of the C++ nn::TransformerDecoderLayer, with PyTorch's submodule names and
order so state dicts match."""
from .. import functional as F
from .activation import MultiheadAttention
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .transformer import _attention, _feed_forward, _get_activation_fn, _get_clones

__all__ = ["TransformerDecoder", "TransformerDecoderLayer"]


class TransformerDecoderLayer(Module):
    """Three blocks, each with dropout, a residual connection and a LayerNorm (after it, or
    before it with norm_first=True): self-attention on tgt, attention from tgt to memory, and
    linear2(dropout(activation(linear1(x)))). activation: "relu" (the default, F.relu), "gelu"
    or a callable."""

    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        # Construction order is PyTorch's: it fixes the random stream of the default init.
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        # Pickles from before `activation` was an attribute meant ReLU.
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        return self.dropout1(_attention(self.self_attn, x, x, attn_mask, key_padding_mask))

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        return self.dropout2(_attention(self.multihead_attn, x, mem, attn_mask, key_padding_mask))

    def _ff_block(self, x):
        return self.dropout3(_feed_forward(self, x))


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer (each attending to the same memory), then the
    optional norm."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output
