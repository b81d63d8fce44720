"""Value clean-up and differences: nan_to_num and diff (Paddle's paddle.tensor.math)."""
from .. import _C
from ..framework import dtype as dt
from ..framework.core import apply
from .manipulation import concat
from .scalars import constant, dtype_name_of, is_tensor

__all__ = ["nan_to_num", "nan_to_num_", "diff"]


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """x with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by
    default the largest and lowest finite values of x's dtype)."""
    name_ = dtype_name_of(x)
    if name_ not in ("float32", "float64", "bfloat16"):
        return apply("assign", x)
    info = dt.finfo(name_)
    big = info.max if posinf is None else float(posinf)
    low = info.min if neginf is None else float(neginf)
    zero = constant(0, name_)
    infs = apply("isinf", x)
    out = apply("where", apply("isnan", x), constant(float(nan), name_), x)
    out = apply("where", apply("logical_and", infs, apply("greater_than", x, zero)),
                constant(big, name_), out)
    return apply("where", apply("logical_and", infs, apply("less_than", x, zero)),
                 constant(low, name_), out)


def nan_to_num_(x, nan=0.0, posinf=None, neginf=None, name=None):
    """nan_to_num, in place."""
    return apply("assign", nan_to_num(x, nan, posinf, neginf), out=[x])


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along ``axis``: out[i] = x[i + 1] - x[i], applied n
    times, after joining ``prepend`` and ``append`` to x along that axis (bool x: xor)."""
    rank = len(x.shape)
    if rank == 0:
        raise _C.Error("diff: x must have at least 1 dim")
    axis = int(axis) % rank
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [p if is_tensor(p) else constant(p, dtype_name_of(x)) for p in parts]
        parts = [apply("expand", p, attrs={"shape": list(x.shape[:axis]) + [1] +
                                           list(x.shape[axis + 1:])}) if not p.shape else p
                 for p in parts]
        x = concat(parts, axis)
    is_bool = dtype_name_of(x) == "bool"
    for _ in range(int(n)):
        size = x.shape[axis]
        head = apply("slice", x, attrs={"axes": [axis], "starts": [1], "ends": [size]})
        tail = apply("slice", x, attrs={"axes": [axis], "starts": [0],
                                        "ends": [max(size - 1, 0)]})
        x = apply("logical_xor" if is_bool else "elementwise_sub", head, tail)
    return x
