"""Stacking along fixed axes, splitting at indices, broadcasting several tensors and
repeating entries (Paddle's hstack/vstack/dstack, tensor_split, broadcast_tensors,
repeat_interleave)."""
import numbers

from .. import _C
from ..framework.core import apply
from ..framework.mode import mode
from .axes import atleast_1d, atleast_2d, atleast_3d
from .manipulation import _axis, _ints, concat, reshape
from .scalars import is_tensor

__all__ = ["hstack", "vstack", "dstack", "column_stack", "row_stack", "tensor_split", "hsplit",
           "vsplit", "dsplit", "broadcast_tensors", "broadcast_shape", "broadcast_shapes",
           "repeat_interleave"]


def _listed(x):
    out = atleast_1d(*x)
    return [out] if is_tensor(out) else out


def hstack(x, name=None):
    """The tensors joined column-wise: along axis 1, or axis 0 for 1-D ones."""
    parts = _listed(x)
    return concat(parts, axis=0 if len(parts[0].shape) == 1 else 1)


def vstack(x, name=None):
    """The tensors joined row-wise (1-D [n] taken as [1, n])."""
    parts = atleast_2d(*x)
    return concat([parts] if is_tensor(parts) else parts, axis=0)


row_stack = vstack


def dstack(x, name=None):
    """The tensors joined along axis 2 (taken at least 3-D as atleast_3d does)."""
    parts = atleast_3d(*x)
    return concat([parts] if is_tensor(parts) else parts, axis=2)


def column_stack(x, name=None):
    """The tensors as columns: 0-D and 1-D ones become [n, 1], then joined along axis 1."""
    parts = [reshape(t, [-1, 1]) if len(t.shape) <= 1 else t for t in x]
    return concat(parts, axis=1)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """x cut along ``axis`` into ``num`` parts whose sizes differ by at most one (the
    first ones larger), or at the given indices. Returns a list."""
    rank = len(x.shape)
    axis = _axis(axis)
    if not -rank <= axis < rank:
        raise _C.Error(f"tensor_split: axis {axis} is out of range for {list(x.shape)}")
    axis %= rank
    n = x.shape[axis]
    if isinstance(num_or_indices, numbers.Integral):
        parts = int(num_or_indices)
        if parts <= 0:
            raise ValueError(f"tensor_split: num_or_indices must be positive, got {parts}")
        base, extra = divmod(n, parts)
        bounds, start = [], 0
        for i in range(parts):
            size = base + (1 if i < extra else 0)
            bounds.append((start, start + size))
            start += size
    else:
        cuts = [min(max(c + n if c < 0 else c, 0), n) for c in _ints(num_or_indices)]
        edges = [0] + cuts + [n]
        bounds = [(edges[i], max(edges[i], edges[i + 1])) for i in range(len(edges) - 1)]
    return [apply("slice", x, attrs={"axes": [axis], "starts": [s], "ends": [e]})
            for s, e in bounds]


def _split_on(fn, axis, need, x, num_or_indices):
    if len(x.shape) < need:
        raise _C.Error(f"{fn}: x must have at least {need} dims, got {list(x.shape)}")
    return tensor_split(x, num_or_indices, axis)


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
    rank = max((len(s) for s in shapes), default=0)
    out = [1] * rank
    for shape in shapes:
        shape = [int(d) for d in shape]
        for i, d in enumerate(shape):
            j = rank - len(shape) + i
            if d != out[j] and d != 1 and out[j] != 1:
                raise ValueError(f"broadcast_shape: shapes {[list(s) for s in shapes]} do "
                                 f"not broadcast (dim {d} against {out[j]})")
            out[j] = d if out[j] == 1 else out[j]
    return out


def broadcast_shape(x_shape, y_shape):
    """The shape x_shape and y_shape broadcast to, as a list."""
    return broadcast_shapes(x_shape, y_shape)


def broadcast_tensors(input, name=None):
    """The tensors of ``input`` each broadcast to their common shape (a list)."""
    shape = broadcast_shapes(*[t.shape for t in input])
    return [t if list(t.shape) == shape else apply("expand", t, attrs={"shape": shape})
            for t in input]


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """x with each entry along ``axis`` (of the flattened x when None) repeated
    ``repeats`` times, or repeats[i] times for entry i when repeats is a 1-D tensor."""
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    rank = len(x.shape)
    axis = int(axis) % rank
    if isinstance(repeats, numbers.Integral) or (is_tensor(repeats) and not repeats.shape):
        times = int(repeats.item()) if is_tensor(repeats) else int(repeats)
        shape = list(x.shape)
        wide = apply("unsqueeze", x, attrs={"axes": [axis + 1]})
        wide = apply("expand", wide, attrs={"shape": shape[:axis + 1] + [times] +
                                            shape[axis + 1:]})
        return reshape(wide, shape[:axis] + [shape[axis] * times] + shape[axis + 1:])
    if not is_tensor(repeats):
        from .creation import to_tensor
        repeats = to_tensor(repeats, dtype="int64")
    return apply("gather", x, _repeat_index(repeats, output_size), attrs={"axis": axis})


def _repeat_index(repeats, output_size):
    """For repeats r: the index list 0 (r[0] times), 1 (r[1] times), ...: position j
    takes the entry whose running total of repeats first exceeds j."""
    r = apply("cast", repeats, attrs={"out_dtype": "int64"})
    if output_size is None:
        if mode.static:
            raise _C.Error("repeat_interleave: in a program, tensor repeats need output_size")
        output_size = int(apply("reduce_sum", r, attrs={"reduce_all": True}).item())
    ends = apply("reshape", apply("cumsum", r, attrs={"axis": 0}), attrs={"shape": [1, -1]})
    from .creation import arange
    pos = apply("reshape", arange(0, int(output_size), 1, "int64"), attrs={"shape": [-1, 1]})
    passed = apply("cast", apply("less_equal", ends, pos), attrs={"out_dtype": "int64"})
    return apply("reduce_sum", passed, attrs={"dim": [1], "keep_dim": False,
                                              "reduce_all": False})
