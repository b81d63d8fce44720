"""Tensor products built on matmul and broadcasting: kron, inner, ger, tensordot, vecdot
(Paddle's paddle.tensor.linalg and math)."""
import numbers

from .. import _C
from ..framework.core import apply
from .linalg import matmul, outer
from .manipulation import _ints, reshape, transpose
from .scalars import is_tensor

__all__ = ["kron", "inner", "ger", "tensordot", "vecdot"]

ger = outer


def kron(x, y, name=None):
    """The Kronecker product: block (i, j, ...) of the result is x[i, j, ...] * y (the
    lower-rank operand padded with leading 1 dims)."""
    xs, ys = list(x.shape), list(y.shape)
    rank = max(len(xs), len(ys))
    xs, ys = [1] * (rank - len(xs)) + xs, [1] * (rank - len(ys)) + ys
    xv = reshape(x, [d for a in xs for d in (a, 1)])
    yv = reshape(y, [d for b in ys for d in (1, b)])
    return reshape(apply("elementwise_mul", xv, yv), [a * b for a, b in zip(xs, ys)])


def inner(x, y, name=None):
    """Sums of products over the last dims of x and y: shape x.shape[:-1] + y.shape[:-1]
    (a plain product when either is 0-d)."""
    if not x.shape or not y.shape:
        return apply("elementwise_mul", x, y)
    if x.shape[-1] != y.shape[-1]:
        raise _C.Error(f"inner: the last dims of x {list(x.shape)} and y {list(y.shape)} "
                       f"must match")
    k = x.shape[-1]
    prod = matmul(reshape(x, [-1, k]), reshape(y, [-1, k]), transpose_y=True)
    return reshape(prod, list(x.shape[:-1]) + list(y.shape[:-1]))


def _tensordot_axes(axes, rx, ry):
    if is_tensor(axes):
        axes = axes.tolist()
    if isinstance(axes, numbers.Integral):
        n = int(axes)
        if n < 0 or n > min(rx, ry):
            raise ValueError(f"tensordot: axes={n} must be in [0, {min(rx, ry)}]")
        return list(range(rx - n, rx)), list(range(n))
    axes = list(axes)
    if axes and isinstance(axes[0], numbers.Integral):
        return _ints(axes), _ints(axes)
    ax = _ints(axes[0]) if len(axes) > 0 else []
    ay = _ints(axes[1]) if len(axes) > 1 else list(ax)
    n = min(len(ax), len(ay))  # Paddle: the longer list is cut to the shorter one's length
    return ax[:n], ay[:n]


def tensordot(x, y, axes=2, name=None):
    """Sums of products over x's dims axes[0] and y's dims axes[1] (an int n: x's last n
    against y's first n); the result holds x's remaining dims then y's."""
    rx, ry = len(x.shape), len(y.shape)
    ax, ay = _tensordot_axes(axes, rx, ry)
    ax, ay = [a % rx for a in ax], [a % ry for a in ay]
    for a, b in zip(ax, ay):
        if x.shape[a] != y.shape[b]:
            raise _C.Error(f"tensordot: dim {a} of x {list(x.shape)} does not match dim {b} "
                           f"of y {list(y.shape)}")
    keep_x = [d for d in range(rx) if d not in ax]
    keep_y = [d for d in range(ry) if d not in ay]
    k = 1
    for a in ax:
        k *= x.shape[a]
    xm = reshape(transpose(x, keep_x + ax), [-1, k])
    ym = reshape(transpose(y, ay + keep_y), [k, -1])
    return reshape(matmul(xm, ym), [x.shape[d] for d in keep_x] + [y.shape[d] for d in keep_y])


def vecdot(x, y, axis=-1, name=None):
    """The dot products of x and y (broadcast) along ``axis``."""
    return apply("reduce_sum", apply("elementwise_mul", x, y),
                 attrs={"dim": [int(axis)], "keep_dim": False, "reduce_all": False})
