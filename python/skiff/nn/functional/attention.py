"""paddle.nn.functional.scaled_dot_product_attention (Paddle's [batch, seq, heads, dim]
layout) and sequence_mask, composed of matmul, softmax and mask ops."""
from ... import _C
from ... import _C_ops
from ...framework.tensor_params import TENSOR, accepts
from ...framework.mode import mode
from ...framework.arguments import dtype_name_of
from ...tensor.linalg import matmul
from ...tensor.manipulation import squeeze
from ...tensor.math import add, cast, scale as tensor_scale
from ...tensor.scalars import constant_like
from .activation import softmax
from .common import dropout
from ...framework import dtype as dt

__all__ = ["scaled_dot_product_attention", "sequence_mask"]


def _repeat_heads(x, times):
    """[B, S, H, D] -> [B, S, H * times, D], each head repeated ``times`` times in a row."""
    if times == 1:
        return x
    b, s, h, d = [0 if int(v) < 0 else int(v) for v in x.shape]
    x = _C_ops.tile(_C_ops.unsqueeze(x, axes=[3]), repeat_times=[1, 1, 1, times, 1])
    return _C_ops.reshape(x, shape=[b, s, h * times, d])


def _additive_mask(mask, dtype):
    """A bool mask (True: attend) as 0 / -inf; a float mask as it is."""
    if dtype_name_of(mask) != "bool":
        return mask
    zeros = constant_like(cast(mask, dtype), 0.0)
    return _C_ops.where(mask, zeros, constant_like(zeros, float("-inf")))


@accepts(value=TENSOR, attn_mask=TENSOR)
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """softmax(Q K^T * scale + mask) V over [batch, seq, heads, dim] (or unbatched [seq,
    heads, dim]) inputs; scale defaults to 1 / sqrt(dim); ``attn_mask`` broadcasts to
    [batch, heads, seq_q, seq_k] (bool: True attends; float: added); ``is_causal`` masks
    keys after each query (and ignores attn_mask); with enable_gqa, key/value heads are
    repeated to match the query's."""
    batched = len(query.shape) == 4
    if len(query.shape) not in (3, 4) or len(key.shape) != len(query.shape) or \
            len(value.shape) != len(query.shape):
        raise ValueError(f"scaled_dot_product_attention: query, key and value must all be "
                         f"3-D or 4-D, got {list(query.shape)}, {list(key.shape)}, "
                         f"{list(value.shape)}")
    if not batched:
        query, key, value = (
            _C_ops.unsqueeze(t, axes=[0]) for t in (query, key, value)
        )
    q_heads, k_heads, v_heads = int(query.shape[2]), int(key.shape[2]), int(value.shape[2])
    if k_heads != v_heads or q_heads % k_heads or (not enable_gqa and q_heads != k_heads):
        raise ValueError(f"scaled_dot_product_attention: {q_heads} query heads do not match "
                         f"{k_heads} key and {v_heads} value heads (enable_gqa={enable_gqa})")
    key, value = (_repeat_heads(t, q_heads // k_heads) for t in (key, value))
    head_dim = int(query.shape[-1])
    scale = scale or (head_dim ** -0.5 if head_dim else 1.0)
    q, k, v = (_C_ops.transpose(t, axis=[0, 2, 1, 3]) for t in (query, key, value))
    scores = matmul(tensor_scale(q, scale), k, transpose_y=True)
    if is_causal:
        ones = cast(constant_like(scores, 1.0), "bool")
        ones.stop_gradient = True
        upper = _C_ops.tril_triu(ones, diagonal=1, lower=False)
        scores = _C_ops.where(upper, constant_like(scores, float("-inf")), scores)
    elif attn_mask is not None:
        scores = add(scores, _additive_mask(attn_mask, dtype_name_of(scores)))
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training)
    out = _C_ops.transpose(matmul(weights, v), axis=[0, 2, 1, 3])
    return out if batched else squeeze(out, [0])


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """mask[..., j] = j < x[...] for j in [0, maxlen), of ``dtype``; maxlen defaults to
    max(x) (which eager mode reads from x; a program needs it given)."""
    if maxlen is None:
        if mode.static:
            raise _C.Error("sequence_mask: maxlen must be given in a static program")
        values = x.numpy()
        maxlen = int(values.max()) if values.size else 0
    if hasattr(maxlen, "numpy"):
        maxlen = int(maxlen.numpy().reshape(-1)[0])
    steps = _C_ops.arange(None, None, None, start=0.0, end=float(maxlen), step=1.0,
                          dtype=dtype_name_of(x))
    mask = _C_ops.less_than(steps, _C_ops.unsqueeze(x, axes=[-1]))
    out = cast(mask, dt.dtype_name(dtype))
    out.stop_gradient = True
    return out
