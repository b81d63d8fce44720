"""Stacking along fixed axes, splitting at indices, broadcasting several tensors and
repeating entries (Paddle's hstack/vstack/dstack, tensor_split, broadcast_tensors,
repeat_interleave)."""
import numpy as np

from .. import _C
from .. import _C_ops
from ..framework import arguments
from ..framework.tensor_params import ARRAYS, TENSORS, accepts
from ..framework.mode import mode
from .axes import atleast_1d, atleast_2d, atleast_3d
from .manipulation import concat, reshape
from .scalars import is_tensor
from .creation import to_tensor
from .creation import arange

__all__ = ["hstack", "vstack", "dstack", "column_stack", "row_stack", "tensor_split", "hsplit",
           "vsplit", "dsplit", "broadcast_tensors", "broadcast_shape", "broadcast_shapes",
           "repeat_interleave"]


_MAX_DIM = 2**63 - 1


def _listed(x):
    out = atleast_1d(*x)
    return [out] if is_tensor(out) else out


@accepts(x=ARRAYS)
def hstack(x, name=None):
    """The tensors joined column-wise: along axis 1, or axis 0 for 1-D ones."""
    parts = _listed(x)
    return concat(parts, axis=0 if len(parts[0].shape) == 1 else 1)


@accepts(x=ARRAYS)
def vstack(x, name=None):
    """The tensors joined row-wise (1-D [n] taken as [1, n])."""
    parts = atleast_2d(*x)
    return concat([parts] if is_tensor(parts) else parts, axis=0)


row_stack = vstack


@accepts(x=ARRAYS)
def dstack(x, name=None):
    """The tensors joined along axis 2 (taken at least 3-D as atleast_3d does)."""
    parts = atleast_3d(*x)
    return concat([parts] if is_tensor(parts) else parts, axis=2)


@accepts(x=TENSORS)
def column_stack(x, name=None):
    """The tensors as columns: 0-D and 1-D ones become [n, 1], then joined along axis 1."""
    parts = [reshape(t, [-1, 1]) if len(t.shape) <= 1 else t for t in x]
    return concat(parts, axis=1)


# More pieces than this, and more than the axis has entries, is taken for a mistake (each
# piece is a tensor of its own).
MAX_PIECES = 1 << 16


def tensor_split(x, num_or_indices, axis=0, name=None):
    """x cut along ``axis`` into ``num`` parts whose sizes differ by at most one (the
    first ones larger), or at the given indices. Returns a list."""
    return _tensor_split("tensor_split", x, num_or_indices, axis)


def _tensor_split(fn, x, num_or_indices, axis):
    """tensor_split for the public function ``fn``, its arguments checked before the
    pieces are cut: at most max(the axis size, MAX_PIECES) pieces."""
    axis = arguments.axis(fn, axis, len(x.shape))
    n = x.shape[axis]
    if not isinstance(num_or_indices, (list, tuple)) and not is_tensor(num_or_indices):
        high = max(n, MAX_PIECES)
        parts = arguments.count(fn, "num_or_indices", num_or_indices, 1, high,
                                f"the larger of axis {axis}'s size {n} and {MAX_PIECES}")
        base, extra = divmod(n, parts)
        bounds, start = [], 0
        for i in range(parts):
            size = base + (1 if i < extra else 0)
            bounds.append((start, start + size))
            start += size
    else:
        indices = arguments.integers(fn, "num_or_indices", num_or_indices)
        cuts = [min(max(c + n if c < 0 else c, 0), n) for c in indices]
        edges = [0] + cuts + [n]
        bounds = [(edges[i], max(edges[i], edges[i + 1])) for i in range(len(edges) - 1)]
    return [_C_ops.slice(x, axes=[axis], starts=[s], ends=[e])
            for s, e in bounds]


def _split_on(fn, axis, need, x, num_or_indices):
    if len(x.shape) < need:
        raise arguments.ArgumentError(f"{fn}: x must have at least {need} dims, got "
                                      f"{list(x.shape)}")
    return _tensor_split(fn, x, num_or_indices, axis)


def hsplit(x, num_or_indices, name=None):
    """tensor_split along axis 1 (axis 0 for 1-D x)."""
    return _split_on("hsplit", 0 if len(x.shape) == 1 else 1, 1, x, num_or_indices)


def vsplit(x, num_or_indices, name=None):
    """tensor_split along axis 0 of an at least 2-D x."""
    return _split_on("vsplit", 0, 2, x, num_or_indices)


def dsplit(x, num_or_indices, name=None):
    """tensor_split along axis 2 of an at least 3-D x."""
    return _split_on("dsplit", 2, 3, x, num_or_indices)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (numpy's rules), as a list."""
    shapes = [arguments.integers("broadcast_shapes", f"shapes[{i}]", s)
              for i, s in enumerate(shapes)]
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        for i, d in enumerate(shape):
            j = rank - len(shape) + i
            if d != out[j] and d != 1 and out[j] != 1:
                raise ValueError(f"broadcast_shape: shapes {shapes} do "
                                 f"not broadcast (dim {d} against {out[j]})")
            out[j] = d if out[j] == 1 else out[j]
    return out


def broadcast_shape(x_shape, y_shape):
    """The shape x_shape and y_shape broadcast to, as a list."""
    return broadcast_shapes(x_shape, y_shape)


@accepts(input=TENSORS)
def broadcast_tensors(input, name=None):
    """The tensors of ``input`` each broadcast to their common shape (a list)."""
    shape = broadcast_shapes(*[t.shape for t in input])
    return [t if list(t.shape) == shape else _C_ops.expand(t, shape=shape)
            for t in input]


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """x with each entry along ``axis`` (of the flattened x when None) repeated
    ``repeats`` times, or repeats[i] times for entry i when repeats is a 1-D tensor."""
    fn = "repeat_interleave"
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    axis = arguments.axis(fn, axis, len(x.shape))
    if not isinstance(repeats, (list, tuple, np.ndarray)) and \
            not (is_tensor(repeats) and repeats.shape):
        shape = list(x.shape)
        times = arguments.count(fn, "repeats", repeats, 0, _MAX_DIM // max(shape[axis], 1),
                                f"axis {axis} of size {shape[axis]} would outgrow int64")
        wide = _C_ops.unsqueeze(x, axes=[axis + 1])
        wide = _C_ops.expand(wide, shape=shape[:axis + 1] + [times] +
                                            shape[axis + 1:])
        return reshape(wide, shape[:axis] + [shape[axis] * times] + shape[axis + 1:])
    if not is_tensor(repeats):
        repeats = to_tensor(arguments.counts(fn, "repeats", repeats), dtype="int64")
    return _C_ops.gather(x, _repeat_index(repeats, output_size), axis=axis)


def _repeat_index(repeats, output_size):
    """For repeats r: the index list 0 (r[0] times), 1 (r[1] times), ...: position j
    takes the entry whose running total of repeats first exceeds j."""
    r = _C_ops.cast(repeats, out_dtype="int64")
    if output_size is None:
        if mode.static:
            raise _C.Error("repeat_interleave: in a program, tensor repeats need output_size")
        output_size = int(_C_ops.reduce_sum(r, reduce_all=True).item())
    ends = _C_ops.reshape(_C_ops.cumsum(r, axis=0), shape=[1, -1])
    pos = _C_ops.reshape(arange(0, int(output_size), 1, "int64"), shape=[-1, 1])
    passed = _C_ops.cast(_C_ops.less_equal(ends, pos), out_dtype="int64")
    return _C_ops.reduce_sum(passed, dim=[1], keep_dim=False, reduce_all=False)
