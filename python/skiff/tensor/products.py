"""Tensor products built on matmul and broadcasting: kron, inner, ger, tensordot, vecdot,
addmm, baddbmm, cross, and the index products cartesian_prod and combinations (Paddle's
paddle.tensor.linalg and math)."""
import itertools
import numbers

from .. import _C
from .. import _C_ops
from ..framework import arguments
from ..framework.tensor_params import FLOATING, TENSORS, accepts
from .linalg import matmul, outer
from .manipulation import _ints, reshape, transpose
from .scalars import dtype_name_of, is_tensor
from .joining import broadcast_shapes
from .creation import to_tensor
from .creation import meshgrid

__all__ = ["kron", "inner", "ger", "tensordot", "vecdot", "addmm", "addmm_", "baddbmm",
           "baddbmm_", "cross", "cartesian_prod", "combinations"]

ger = outer


def kron(x, y, name=None):
    """The Kronecker product: block (i, j, ...) of the result is x[i, j, ...] * y (the
    lower-rank operand padded with leading 1 dims)."""
    xs, ys = list(x.shape), list(y.shape)
    rank = max(len(xs), len(ys))
    xs, ys = [1] * (rank - len(xs)) + xs, [1] * (rank - len(ys)) + ys
    xv = reshape(x, [d for a in xs for d in (a, 1)])
    yv = reshape(y, [d for b in ys for d in (1, b)])
    return reshape(_C_ops.elementwise_mul(xv, yv), [a * b for a, b in zip(xs, ys)])


@accepts(x=FLOATING)
def inner(x, y, name=None):
    """Sums of products over the last dims of x and y: shape x.shape[:-1] + y.shape[:-1]
    (a plain product when either is 0-d)."""
    if not x.shape or not y.shape:
        return _C_ops.elementwise_mul(x, y)
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
        return _ints(axes, "tensordot", "axes"), _ints(axes, "tensordot", "axes")
    ax = _ints(axes[0], "tensordot", "axes[0]") if len(axes) > 0 else []
    ay = _ints(axes[1], "tensordot", "axes[1]") if len(axes) > 1 else list(ax)
    # Paddle: the shorter list is extended with the longer one's entries past its end
    return ax + ay[len(ax):], ay + ax[len(ay):]


@accepts(x=FLOATING)
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
    axis = arguments.axis("vecdot", axis, max(len(x.shape), len(y.shape)), scalar=True)
    return _C_ops.reduce_sum(_C_ops.elementwise_mul(x, y), dim=[axis], keep_dim=False,
                             reduce_all=False)


def _scaled_sum(fn, input, product, beta, alpha):
    """beta * input + alpha * product (input broadcast to the product's shape)."""
    try:
        broadcast_shapes(input.shape, product.shape)
    except ValueError:
        raise ValueError(f"{fn}: input {list(input.shape)} does not broadcast to the "
                         f"product's shape {list(product.shape)}") from None
    scaled = _C_ops.scale(product, scale=float(alpha)) if alpha != 1 else product
    base = _C_ops.scale(input, scale=float(beta)) if beta != 1 else input
    return _C_ops.elementwise_add(base, scaled)


@accepts(input=FLOATING)
def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y) for matrices x [M, K] and y [K, N] (input
    broadcast to [M, N])."""
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ValueError(f"addmm: x and y must be 2-D, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    if x.shape[1] != y.shape[0]:
        raise ValueError(f"addmm: x {list(x.shape)} and y {list(y.shape)} do not multiply")
    return _scaled_sum("addmm", input, matmul(x, y), beta, alpha)


@accepts(input=FLOATING)
def addmm_(input, x, y, beta=1.0, alpha=1.0, name=None):
    """addmm, written into input."""
    return _C_ops.assign(addmm(input, x, y, beta, alpha), out=[input])


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y) for batches x [B, M, K] and y [B, K, N] (input
    broadcast to [B, M, N])."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"baddbmm: x and y must be 3-D, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    if x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
        raise ValueError(f"baddbmm: x {list(x.shape)} and y {list(y.shape)} do not "
                         f"multiply batch by batch")
    return _scaled_sum("baddbmm", input, matmul(x, y), beta, alpha)


def baddbmm_(input, x, y, beta=1.0, alpha=1.0, name=None):
    """baddbmm, written into input."""
    return _C_ops.assign(baddbmm(input, x, y, beta, alpha), out=[input])


def cross(x, y, axis=9, name=None):
    """The cross product of 3-vectors along ``axis`` of x and y (one shape); the default
    9 picks the first dim of size 3."""
    if list(x.shape) != list(y.shape):
        raise ValueError(f"cross: x {list(x.shape)} and y {list(y.shape)} must have one "
                         f"shape")
    rank = len(x.shape)
    if axis == 9:
        axis = next((d for d, n in enumerate(x.shape) if n == 3), None)
        if axis is None:
            raise ValueError(f"cross: no dim of x {list(x.shape)} has size 3")
    else:
        axis = arguments.axis("cross", axis, rank)
        if x.shape[axis] != 3:
            raise arguments.ArgumentError(f"cross: axis {axis} of x {list(x.shape)} must "
                                          f"have size 3")

    def part(t, i):
        return _C_ops.slice(t, axes=[axis], starts=[i], ends=[i + 1])

    def term(i, j):
        return _C_ops.elementwise_sub(_C_ops.elementwise_mul(part(x, i), part(y, j)),
                                      _C_ops.elementwise_mul(part(x, j), part(y, i)))

    return _C_ops.concat([term(1, 2), term(2, 0), term(0, 1)], axis=axis)


def _rows_of(x, rows, width):
    """The [len(rows), width] tensor whose rows are x's entries at the index tuples
    ``rows``."""
    if not rows:
        empty = _C_ops.slice(x, axes=[0], starts=[0], ends=[0])
        return reshape(empty, [-1, width])
    idx = to_tensor([i for row in rows for i in row], dtype="int64")
    return reshape(_C_ops.gather(x, idx, axis=0), [len(rows), width])


@accepts(x=TENSORS)
def cartesian_prod(x, name=None):
    """All tuples (a, b, ...) with a from x[0], b from x[1], ... (1-D tensors), as the
    rows of a [n0 * n1 * ..., len(x)] tensor; a single tensor is returned as is."""
    x = list(x)
    if not x or any(len(t.shape) != 1 for t in x):
        raise ValueError(f"cartesian_prod: x must be a non-empty list of 1-D tensors, got "
                         f"shapes {[list(t.shape) for t in x]}")
    if len(x) == 1:
        return x[0]
    if any(t.shape[0] == 0 for t in x):  # no tuples: an empty [0, len(x)] tensor
        return _C_ops.fill_constant(shape=[0, len(x)], value=0.0, dtype=dtype_name_of(x[0]))
    grids = meshgrid(*x)
    return _C_ops.stack([reshape(g, [-1]) for g in grids], axis=1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The length-r combinations of the entries of 1-D x (itertools' order), as the rows
    of a [count, r] tensor; with_replacement lets an entry repeat."""
    if len(x.shape) != 1:
        raise ValueError(f"combinations: x must be 1-D, got {list(x.shape)}")
    if not isinstance(r, numbers.Integral) or r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r!r}")
    if r == 0:
        return _C_ops.slice(x, axes=[0], starts=[0], ends=[0])
    pick = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    return _rows_of(x, list(pick(range(x.shape[0]), int(r))), int(r))
