"""paddle.nn.functional.pairwise_distance: the p-norm of x - y + epsilon along the last
axis, from elementwise and reduce ops; pdist (the distances between a matrix's rows) is
skiff.tensor's."""
from ... import _C_ops
import math

from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.math import cast, scale, subtract
from ...tensor.scalars import constant_like
from ...tensor.linalg import pdist

__all__ = ["pairwise_distance", "pdist"]


def p_norm_last(d, p, keepdim=False):
    """||d||_p over the last axis: p = inf (max |d|), -inf (min |d|), 0 (count of
    non-zeros), else (sum |d|^p)^(1/p)."""
    p = float(p)
    if p == 2.0:
        squares = _C_ops.reduce_sum(_C_ops.square(d), dim=[-1], keep_dim=keepdim, reduce_all=False)
        return _C_ops.sqrt(squares)
    mag = _C_ops.abs(d)
    if math.isinf(p):
        extreme = _C_ops.reduce_max if p > 0 else _C_ops.reduce_min
        return extreme(mag, dim=[-1], keep_dim=keepdim, reduce_all=False)
    if p == 0.0:
        nonzero = _C_ops.not_equal(mag, constant_like(mag, 0.0))
        return _C_ops.reduce_sum(cast(nonzero, dtype_name_of(d)), dim=[-1], keep_dim=keepdim,
                                 reduce_all=False)
    if p == 1.0:
        return _C_ops.reduce_sum(mag, dim=[-1], keep_dim=keepdim, reduce_all=False)
    powered = _C_ops.pow(mag, factor=p)
    return _C_ops.pow(_C_ops.reduce_sum(powered, dim=[-1], keep_dim=keepdim, reduce_all=False),
                      factor=1.0 / p)


@accepts(x=FLOATING)
def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p along the last axis (broadcasting x and y): [N, D] -> [N]
    ([N, 1] with keepdim), [D] -> []."""
    if not isinstance(p, (int, float)):
        raise TypeError(f"pairwise_distance: p must be a number, got {type(p).__name__}")
    d = subtract(x, y)
    if epsilon != 0.0:
        d = scale(d, 1.0, float(epsilon))
    return p_norm_last(d, p, keepdim)
