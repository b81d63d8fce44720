"""MultiHeadAttention, TransformerEncoderLayer and TransformerEncoder (paddle.nn), with
attention built from matmul, softmax, reshape and transpose ops."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.arguments import MAX_LAYERS, count, flag, real
from .. import functional as F
from ...framework.arguments import dtype_name_of
from ...tensor.linalg import matmul
from ...tensor.math import add, cast, scale
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder"]


def convert_attention_mask(mask, dtype):
    """A mask added to attention scores: bool / integer masks keep entries that are True
    (non-zero) and push the rest to -1e9; float masks are added as given."""
    if mask is None:
        return None
    name = dtype_name_of(mask)
    if name in ("bool", "int32", "int64"):
        return scale(cast(mask, dtype), 1e9, -1e9)
    return mask if name == dtype else cast(mask, dtype)


def check_settings(where, d_model, nhead, dim_feedforward, dropout, attn_dropout, act_dropout,
                   activation, normalize_before, layer_norm_eps=1e-5):
    """The settings a Transformer layer (``where``) shares, checked before any sublayer is
    made: sizes >= 1 with d_model a multiple of nhead, dropout rates in [0, 1] (or None),
    activation the name of a function of nn.functional. Returns the activation."""
    for param, value in (("d_model", d_model), ("nhead", nhead),
                         ("dim_feedforward", dim_feedforward)):
        count(where, param, value, low=1)
    if d_model % nhead:
        raise arguments.ArgumentError(f"{where}: d_model ({d_model}) must be a multiple of "
                                      f"nhead ({nhead})")
    real(where, "dropout", dropout, low=0, high=1)
    for param, value in (("attn_dropout", attn_dropout), ("act_dropout", act_dropout)):
        if value is not None:
            real(where, param, value, low=0, high=1)
    flag(where, "normalize_before", normalize_before)
    real(where, "layer_norm_eps", layer_norm_eps, low=0)
    if not isinstance(activation, str) or not callable(getattr(F, activation, None)):
        raise arguments.ArgumentError(f"{where}: activation must name a function of "
                                      f"nn.functional, got {activation!r}")
    return getattr(F, activation)


def check_stack(where, layer, num_layers, norm):
    """num_layers (an int in [0, MAX_LAYERS]) for a stack built from ``layer`` and ended
    by ``norm`` (a Layer or None)."""
    if not isinstance(layer, Layer):
        raise arguments.ArgumentTypeError(f"{where}: the layer to repeat must be a Layer, got "
                                          f"{type(layer).__name__}")
    if norm is not None and not isinstance(norm, Layer):
        raise arguments.ArgumentTypeError(f"{where}: norm must be a Layer or None, got "
                                          f"{type(norm).__name__}")
    return count(where, "num_layers", num_layers, 0, MAX_LAYERS,
                 "the deepest stack skiff builds")


def _pair_of_attrs(attr):
    """Paddle's attr lists: one attr for both parts, or [attention's, feed-forward's]."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != 2:
            raise ValueError(f"expected one parameter attribute or a list of 2, got {attr}")
        return list(attr)
    return [attr, attr]


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads of embed_dim / num_heads:
    forward(query, key=None, value=None, attn_mask=None) -> out (and the attention
    weights with need_weights). Inputs are [batch, length, dim]."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        embed_dim = count("MultiHeadAttention", "embed_dim", embed_dim, low=1)
        num_heads = count("MultiHeadAttention", "num_heads", num_heads, low=1)
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be a positive "
                             f"multiple of num_heads ({num_heads})")
        dropout = real("MultiHeadAttention", "dropout", dropout, low=0, high=1)
        kdim = None if kdim is None else count("MultiHeadAttention", "kdim", kdim)
        vdim = None if vdim is None else count("MultiHeadAttention", "vdim", vdim)
        need_weights = flag("MultiHeadAttention", "need_weights", need_weights)
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim, self.vdim = kdim or embed_dim, vdim or embed_dim
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        """[batch, length, embed] -> [batch, heads, length, head_dim]."""
        return _C_ops.transpose(_C_ops.reshape(x, shape=[0, 0, self.num_heads, self.head_dim]),
                                axis=[0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise _C.Error("MultiHeadAttention: incremental decoding caches are not supported")
        key = query if key is None else key
        value = query if value is None else value
        for what, x in (("query", query), ("key", key), ("value", value)):
            if len(x.shape) != 3:
                raise _C.Error(f"MultiHeadAttention: {what} must be [batch, length, dim], got "
                               f"shape {list(x.shape)}")
        q = self._heads(self.q_proj(query))
        k = self._heads(self.k_proj(key))
        v = self._heads(self.v_proj(value))
        scores = matmul(scale(q, self.head_dim ** -0.5), k, transpose_y=True)
        mask = convert_attention_mask(attn_mask, dtype_name_of(scores))
        if mask is not None:
            scores = add(scores, mask)
        weights = F.softmax(scores)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training)
        out = matmul(weights, v)
        out = _C_ops.reshape(_C_ops.transpose(out, axis=[0, 2, 1, 3]), shape=[0, 0, self.embed_dim])
        out = self.out_proj(out)
        return (out, weights) if self.need_weights else out


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block (linear, activation, linear), each with
    dropout, a residual connection and layer norm (after, or before with
    normalize_before). forward(src, src_mask=None)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        self.__dict__["_config"] = {k: v for k, v in locals().items()
                                    if k not in ("self", "__class__")}
        super().__init__()
        activation = check_settings("TransformerEncoderLayer", d_model, nhead, dim_feedforward,
                                    dropout, attn_dropout, act_dropout, activation,
                                    normalize_before, layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs, bias_attrs = _pair_of_attrs(weight_attr), _pair_of_attrs(bias_attr)
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                            weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = activation

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise _C.Error("TransformerEncoderLayer: incremental caches are not supported")
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        src = add(residual, self.dropout1(self.self_attn(src, src, src, src_mask)))
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = add(residual, self.dropout2(src))
        if not self.normalize_before:
            src = self.norm2(src)
        return src


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers: the given one, then fresh copies of its
    configuration (their own parameters), and an optional final norm."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        num_layers = check_stack("TransformerEncoder", encoder_layer, num_layers, norm)
        config = getattr(encoder_layer, "_config", None)
        if num_layers > 1 and config is None:
            raise TypeError("TransformerEncoder: encoder_layer must be a "
                            "TransformerEncoderLayer to be repeated")
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        if cache is not None:
            raise _C.Error("TransformerEncoder: incremental caches are not supported")
        out = src
        for layer in self.layers:
            out = layer(out, src_mask)
        return out if self.norm is None else self.norm(out)
