"""TransformerDecoderLayer, TransformerDecoder and Transformer (paddle.nn): masked
self-attention, attention over the encoder's memory and a feed-forward block."""
from ... import _C
from ... import _C_ops
from ...framework.arguments import MAX_LAYERS, ArgumentTypeError, count
from ...tensor.creation import full
from ...tensor.math import add
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm
from .transformer_encoder import (MultiHeadAttention, TransformerEncoder, TransformerEncoderLayer,
                          check_settings, check_stack)

__all__ = ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _attrs_for(attr, parts):
    """One attribute for every part, or Paddle's list (one per part)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != parts:
            raise ValueError(f"expected one parameter attribute or a list of {parts}, got "
                             f"{attr}")
        return list(attr)
    return [attr] * parts


class TransformerDecoderLayer(Layer):
    """Masked self-attention, attention over ``memory``, then a feed-forward block; each
    with dropout, a residual connection and layer norm (after, or before with
    normalize_before). forward(tgt, memory, tgt_mask=None, memory_mask=None)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        self.__dict__["_config"] = {k: v for k, v in locals().items()
                                    if k not in ("self", "__class__")}
        super().__init__()
        activation = check_settings("TransformerDecoderLayer", d_model, nhead, dim_feedforward,
                                    dropout, attn_dropout, act_dropout, activation,
                                    normalize_before, layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _attrs_for(weight_attr, 3), _attrs_for(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[0],
                                            bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout, weight_attr=w[1],
                                             bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], b[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[2], b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = activation

    def _block(self, x, norm, dropout, compute):
        residual = x
        if self.normalize_before:
            x = norm(x)
        x = add(residual, dropout(compute(x)))
        return x if self.normalize_before else norm(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        if cache is not None:
            raise _C.Error("TransformerDecoderLayer: incremental caches are not supported")
        tgt = self._block(tgt, self.norm1, self.dropout1,
                          lambda x: self.self_attn(x, x, x, tgt_mask))
        tgt = self._block(tgt, self.norm2, self.dropout2,
                          lambda x: self.cross_attn(x, memory, memory, memory_mask))
        return self._block(tgt, self.norm3, self.dropout3, lambda x: self.linear2(
            self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers (the given one, then fresh copies of its
    configuration) and an optional final norm."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        num_layers = check_stack("TransformerDecoder", decoder_layer, num_layers, norm)
        config = getattr(decoder_layer, "_config", None)
        if num_layers > 1 and config is None:
            raise TypeError("TransformerDecoder: decoder_layer must be a "
                            "TransformerDecoderLayer to be repeated")
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        if cache is not None:
            raise _C.Error("TransformerDecoder: incremental caches are not supported")
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask, memory_mask)
        return out if self.norm is None else self.norm(out)


class Transformer(Layer):
    """An encoder-decoder Transformer (each stack ends with a LayerNorm):
    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        check_settings("Transformer", d_model, nhead, dim_feedforward, dropout, attn_dropout,
                       act_dropout, activation, normalize_before)
        for param, value in (("num_encoder_layers", num_encoder_layers),
                             ("num_decoder_layers", num_decoder_layers)):
            count("Transformer", param, value, 0, MAX_LAYERS, "the deepest stack skiff builds")
        for param, value in (("custom_encoder", custom_encoder),
                             ("custom_decoder", custom_decoder)):
            if value is not None and not isinstance(value, Layer):
                raise ArgumentTypeError(f"Transformer: {param} must be a Layer or None, got "
                                        f"{type(value).__name__}")
        common = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                      act_dropout=act_dropout, normalize_before=normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            enc_w, enc_b = _attrs_for(weight_attr, 3)[::2], _attrs_for(bias_attr, 3)[::2]
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, weight_attr=enc_w,
                                            bias_attr=enc_b, **common)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward,
                                            weight_attr=weight_attr, bias_attr=bias_attr,
                                            **common)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    @staticmethod
    def generate_square_subsequent_mask(length):
        """A [length, length] float mask: 0 on and below the diagonal, -inf above it."""
        steps = _C_ops.arange(None, None, None, start=0.0, end=float(length), step=1.0,
                              dtype="int64")
        above = _C_ops.less_than(_C_ops.unsqueeze(steps, axes=[1]),
                                 _C_ops.unsqueeze(steps, axes=[0]))
        return _C_ops.where(above, full([length, length], float("-inf"), "float32"),
                            full([length, length], 0.0, "float32"))
