"""paddle.nn.functional.pairwise_distance: the p-norm of x - y + epsilon along the last
axis, from elementwise and reduce ops."""
import math

from ...framework.core import apply
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.math import cast, scale, subtract
from ...tensor.scalars import constant_like

__all__ = ["pairwise_distance"]


def p_norm_last(d, p, keepdim=False):
    """||d||_p over the last axis: p = inf (max |d|), -inf (min |d|), 0 (count of
    non-zeros), else (sum |d|^p)^(1/p)."""
    p = float(p)
    if p == 2.0:
        return apply(
            "sqrt",
            apply(
                "reduce_sum",
                apply("square", d),
                attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False},
            ),
        )
    mag = apply("abs", d)
    if math.isinf(p):
        return apply(
            "reduce_" + ("max" if p > 0 else "min"),
            mag,
            attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False},
        )
    if p == 0.0:
        nonzero = apply("not_equal", mag, constant_like(mag, 0.0))
        return apply(
            "reduce_sum",
            cast(nonzero, dtype_name_of(d)),
            attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False},
        )
    if p == 1.0:
        return apply(
            "reduce_sum", mag, attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False}
        )
    powered = apply("pow", mag, attrs={"factor": p})
    return apply(
        "pow",
        apply("reduce_sum", powered, attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False}),
        attrs={"factor": 1.0 / p},
    )


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
