"""Sparse attention: softmax(Q K^T / sqrt(D)) V computed only at the entries of a CSR
mask, the scores held as a sparse tensor between the two products."""
import math

import numpy as np

from ....framework.arguments import ArgumentError
from .... import tensor as T
from ...matmul import masked_matmul, matmul
from ...tensor import require_sparse
from .activation import softmax

__all__ = ["attention"]


def _masked_out(scores, keep):
    """scores with -inf where the host bool array ``keep`` (one per entry) is False."""
    if keep.all():
        return scores
    penalty = np.where(keep, 0.0, -np.inf)
    return scores._with_values(T.add(scores._values, T.cast(T.to_tensor(penalty),
                                                             scores._dtype_name)))


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None,
              name=None):
    """Attention of query/key/value [B, H, M, D] at the entries of sparse_mask (CSR [B*H,
    M, M]); key_padding_mask [B, M] and attn_mask [M, M] drop the entries where they are
    0. Returns the dense [B, H, M, D] output."""
    mask = require_sparse("attention", sparse_mask, "sparse_mask", formats=("csr",))
    if len(query.shape) != 4:
        raise ArgumentError(f"attention: query must be [batch, heads, seq, dim], got "
                            f"{query.shape}")
    b, h, m, d = query.shape
    if list(key.shape) != [b, h, m, d] or list(value.shape) != [b, h, m, d]:
        raise ArgumentError(f"attention: key and value must have query's shape "
                            f"{query.shape}, got {key.shape} and {value.shape}")
    if list(mask.shape) != [b * h, m, m]:
        raise ArgumentError(f"attention: sparse_mask must have shape {[b * h, m, m]}, got "
                            f"{mask.shape}")
    q = T.scale(T.reshape(query, [b * h, m, d]), 1.0 / math.sqrt(d))
    k_t = T.transpose(T.reshape(key, [b * h, m, d]), [0, 2, 1])
    scores = masked_matmul(q, k_t, mask)
    host = mask._host_indices()
    keep = np.ones(host.shape[1], bool)
    if key_padding_mask is not None:
        pad = key_padding_mask.numpy().reshape(b, m)
        keep &= pad[host[0] // h, host[2]] != 0
    if attn_mask is not None:
        keep &= attn_mask.numpy().reshape(m, m)[host[1], host[2]] != 0
    weights = softmax(_masked_out(scores, keep))
    out = matmul(weights, T.reshape(value, [b * h, m, d]))
    return T.reshape(out, [b, h, m, d])
