"""Reordering, viewing and reading out axes (Paddle's aliases and views): permute,
swapaxes, matrix_transpose, diagonal, unflatten, view, ravel, atleast_Nd, reverse."""
from .. import _C
from .. import _C_ops
from ..framework import arguments, dtype as dt
from .manipulation import _ints, concat, flatten, flip, reshape, transpose
from .scalars import dtype_name_of, is_tensor
from .creation import arange
from .creation import data_tensor

__all__ = ["cat", "concatenate", "permute", "swapaxes", "swapdims", "matrix_transpose",
           "transpose_", "diagonal", "unflatten", "view", "view_as", "ravel", "atleast_1d",
           "atleast_2d", "atleast_3d", "reverse", "tolist", "trace"]

cat = concatenate = concat
reverse = flip


def permute(input, *dims):
    """input with its axes permuted (dims as a list or as separate ints)."""
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = dims[0]
    return transpose(input, arguments.integers("permute", "dims", dims))


def swapaxes(x, perm, name=None):
    """x with two axes exchanged: swapaxes(x, axis0, axis1); a full permutation list
    permutes as transpose does."""
    if not isinstance(perm, (list, tuple)) and not is_tensor(perm):
        rank = len(x.shape)
        a = arguments.axis("swapaxes", perm, rank, "axis0")
        b = arguments.axis("swapaxes", name, rank, "axis1")
        order = list(range(rank))
        order[a], order[b] = order[b], order[a]
        return transpose(x, order)
    return transpose(x, perm)


swapdims = swapaxes


def matrix_transpose(x, name=None):
    """x with its last two axes exchanged."""
    rank = len(x.shape)
    if rank < 2:
        raise _C.Error(f"matrix_transpose: x must have at least 2 dims, got {list(x.shape)}")
    return transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


def transpose_(x, perm, name=None):
    """transpose, in place: x takes the permuted value."""
    perm = arguments.axes("transpose_", perm, len(x.shape), "perm")
    return _C_ops.transpose(x, axis=perm, out=[x])


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The ``offset``-th diagonal of the matrices spanned by axis1 and axis2: those axes
    are dropped and the diagonal becomes the last axis."""
    return _diagonal("diagonal", x, offset, axis1, axis2)


def _diagonal(fn, x, offset, axis1, axis2):
    """diagonal(x, offset, axis1, axis2) for the public function ``fn`` (named in errors)."""
    rank = len(x.shape)
    if rank < 2:
        raise arguments.ArgumentError(f"{fn}: x must have at least 2 dims, got shape "
                                      f"{list(x.shape)}")
    offset = arguments.integer(fn, "offset", offset)
    a1 = arguments.axis(fn, axis1, rank, "axis1")
    a2 = arguments.axis(fn, axis2, rank, "axis2")
    if a1 == a2:
        raise arguments.ArgumentError(f"{fn}: axis1 and axis2 must differ, got {axis1} and "
                                      f"{axis2}")
    rest = [d for d in range(rank) if d not in (a1, a2)]
    n1, n2 = x.shape[a1], x.shape[a2]
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    count = max(0, min(n1 - r0, n2 - c0))
    moved = transpose(x, rest + [a1, a2])
    flat = reshape(moved, [x.shape[d] for d in rest] + [n1 * n2])
    pos = _C_ops.scale(arange(0, count, 1, "int64"), scale=float(n2 + 1), bias=float(r0 * n2 + c0))
    return _C_ops.gather(flat, pos, axis=len(rest))


def unflatten(x, axis, shape, name=None):
    """x with dim ``axis`` split into ``shape`` (one entry may be -1)."""
    axis = arguments.axis("unflatten", axis, len(x.shape))
    dims = list(x.shape)
    return reshape(x, dims[:axis] + _ints(shape, "unflatten") + dims[axis + 1:])


def view(x, shape_or_dtype, name=None):
    """x with a new shape (reshape's rules). A dtype is accepted only when it is x's
    own: skiff has no bit-reinterpreting cast."""
    if isinstance(shape_or_dtype, (list, tuple)) or is_tensor(shape_or_dtype):
        return reshape(x, shape_or_dtype)
    name = dt.dtype_name(shape_or_dtype)
    if name != dtype_name_of(x):
        raise _C.Error(f"view: reinterpreting {dtype_name_of(x)} bits as {name} is not "
                       f"supported; use astype/cast to convert values")
    return reshape(x, list(x.shape))


def view_as(x, other, name=None):
    """x with ``other``'s shape."""
    return reshape(x, list(other.shape))


def ravel(input):
    """input flattened to 1-D."""
    return flatten(input)


def _atleast(n, inputs):
    def widen(i, t):
        if not is_tensor(t):
            t = data_tensor(f"atleast_{n}d", f"inputs[{i}]", t)
        shape = list(t.shape)
        if len(shape) >= n:
            return t
        if n == 3 and len(shape) == 2:
            return reshape(t, shape + [1])
        if n == 3 and len(shape) == 1:
            return reshape(t, [1] + shape + [1])
        return reshape(t, [1] * (n - len(shape)) + shape)

    out = [widen(i, t) for i, t in enumerate(inputs)]
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dim (a tensor for one input, else a list)."""
    return _atleast(1, inputs)


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dims (1-D [n] becomes [1, n])."""
    return _atleast(2, inputs)


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dims ([n] becomes [1, n, 1], [m, n] becomes [m, n, 1])."""
    return _atleast(3, inputs)


def tolist(x):
    """x's values as (nested) Python lists."""
    return x.numpy().tolist()


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """The sums of the ``offset``-th diagonals of the matrices spanned by axis1 and axis2
    (a 0-D tensor for a matrix; the other axes stay)."""
    d = _diagonal("trace", x, offset, axis1, axis2)
    return _C_ops.reduce_sum(d, dim=[-1], keep_dim=False, reduce_all=False)
