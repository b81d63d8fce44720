"""paddle.nn.functional.pairwise_distance: the p-norm of x - y + epsilon along the last
axis, from elementwise and reduce ops."""
import math

from ...framework.core import apply
from ...framework.tensor_params import FLOATING, accepts
from . import tensor_ops as T

__all__ = ["pairwise_distance"]


def p_norm_last(d, p, keepdim=False):
    """||d||_p over the last axis: p = inf (max |d|), -inf (min |d|), 0 (count of
    non-zeros), else (sum |d|^p)^(1/p)."""
    p = float(p)
    if p == 2.0:
        return apply("sqrt", T.reduce("sum", apply("square", d), [-1], keepdim))
    mag = apply("abs", d)
    if math.isinf(p):
        return T.reduce("max" if p > 0 else "min", mag, [-1], keepdim)
    if p == 0.0:
        nonzero = apply("not_equal", mag, T.full_like(mag, 0.0))
        return T.reduce("sum", T.cast(nonzero, T.dtype_name(d)), [-1], keepdim)
    if p == 1.0:
        return T.reduce("sum", mag, [-1], keepdim)
    powered = apply("pow", mag, attrs={"factor": p})
    return apply("pow", T.reduce("sum", powered, [-1], keepdim), attrs={"factor": 1.0 / p})


@accepts(x=FLOATING)
def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p along the last axis (broadcasting x and y): [N, D] -> [N]
    ([N, 1] with keepdim), [D] -> []."""
    if not isinstance(p, (int, float)):
        raise TypeError(f"pairwise_distance: p must be a number, got {type(p).__name__}")
    d = T.sub(x, y)
    if epsilon != 0.0:
        d = T.scale(d, 1.0, float(epsilon))
    return p_norm_last(d, p, keepdim)
