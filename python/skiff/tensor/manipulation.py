"""Reshaping, joining, splitting, broadcasting and gathering tensors (Paddle's
paddle.tensor.manipulation)."""
import numbers

from ..framework.core import apply
from .math import inplace, run_cached
from .scalars import is_tensor

__all__ = ["reshape", "reshape_", "transpose", "flatten", "squeeze", "unsqueeze", "concat",
           "split", "chunk", "stack", "unstack", "unbind", "expand", "expand_as", "broadcast_to",
           "tile", "gather", "gather_nd", "scatter", "index_select", "slice", "strided_slice",
           "flip", "squeeze_", "unsqueeze_"]


def _ints(v):
    """A list of Python ints from an int, a sequence (of ints or 1-element tensors) or a
    tensor."""
    if is_tensor(v):
        return [int(a) for a in v.tolist()] if v.ndim else [int(v.item())]
    if isinstance(v, numbers.Integral):
        return [int(v)]
    return [int(a.item()) if is_tensor(a) else int(a) for a in v]


def _axis(axis):
    return int(axis.item()) if is_tensor(axis) else int(axis)


def reshape(x, shape, name=None):
    """x viewed with ``shape`` (0 copies x's dim, one -1 is inferred)."""
    shape = _ints(shape)
    return run_cached("reshape", tuple(shape), {"shape": shape}, x)


def reshape_(x, shape, name=None):
    """reshape, in place: x takes the new shape."""
    return inplace("reshape", x, x, attrs={"shape": _ints(shape)})


def transpose(x, perm, name=None):
    """x with its axes permuted: output axis i is x's axis perm[i]."""
    perm = _ints(perm)
    return run_cached("transpose", tuple(perm), {"axis": perm}, x)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """x with dims start_axis..stop_axis merged into one."""
    return apply("flatten", x, attrs={"start_axis": int(start_axis), "stop_axis": int(stop_axis)})


def squeeze(x, axis=None, name=None):
    """x without its size-1 dims (only those in ``axis`` when given)."""
    return apply("squeeze", x, attrs={"axes": [] if axis is None else _ints(axis)})


def squeeze_(x, axis=None, name=None):
    return inplace("squeeze", x, x, attrs={"axes": [] if axis is None else _ints(axis)})


def unsqueeze(x, axis, name=None):
    """x with size-1 dims inserted at ``axis`` (an int or a list, applied in turn)."""
    axes = _ints(axis)
    return run_cached("unsqueeze", tuple(axes), {"axes": axes}, x)


def unsqueeze_(x, axis, name=None):
    return inplace("unsqueeze", x, x, attrs={"axes": _ints(axis)})


def concat(x, axis=0, name=None):
    """The tensors of ``x`` joined along ``axis``."""
    return apply("concat", list(x), attrs={"axis": _axis(axis)})


def split(x, num_or_sections, axis=0, name=None):
    """x cut along ``axis`` into ``num_or_sections`` equal parts, or parts of the given
    sizes (one may be -1: the rest). Returns a list."""
    axis = _axis(axis)
    if isinstance(num_or_sections, numbers.Integral):
        n = int(num_or_sections)
        attrs = {"num": n, "axis": axis}
    else:
        sections = _ints(num_or_sections)
        n = len(sections)
        attrs = {"sections": sections, "axis": axis}
    return list(apply("split", x, attrs=attrs, output_counts=[n])[0])


def chunk(x, chunks, axis=0, name=None):
    """x cut into ``chunks`` equal parts along ``axis``."""
    return split(x, int(chunks), axis)


def stack(x, axis=0, name=None):
    """The tensors of ``x`` (one shape) stacked along a new axis."""
    return apply("stack", list(x), attrs={"axis": int(axis)})


def unstack(x, axis=0, num=None):
    """The slices of x along ``axis``, each without that axis (a list)."""
    rank = len(x.shape)
    axis = axis + rank if axis < 0 else axis
    n = x.shape[axis] if num is None else int(num)
    if n < 0:
        from .._C import Error
        raise Error(f"unstack: the size of axis {axis} of {list(x.shape)} is unknown; "
                    f"pass num")
    if n == 0:
        return []
    parts = split(x, n, axis)
    return [apply("squeeze", p, attrs={"axes": [axis]}) for p in parts]


unbind = unstack


def expand(x, shape, name=None):
    """x broadcast to ``shape`` (-1 keeps x's dim)."""
    return apply("expand", x, attrs={"shape": _ints(shape)})


def broadcast_to(x, shape, name=None):
    """x broadcast to ``shape`` (-1 keeps x's dim)."""
    return apply("broadcast_to", x, attrs={"shape": _ints(shape)})


def expand_as(x, y, name=None):
    """x broadcast to y's shape."""
    return apply("expand", x, attrs={"shape": list(y.shape)})


def tile(x, repeat_times, name=None):
    """x repeated repeat_times[i] times along dim i."""
    return apply("tile", x, attrs={"repeat_times": _ints(repeat_times)})


def gather(x, index, axis=None, name=None):
    """The entries of x at ``index`` (1-D integer tensor) along ``axis`` (0 by default)."""
    return apply("gather", x, _index_tensor(index), attrs={"axis": 0 if axis is None
                                                          else _axis(axis)})


def index_select(x, index, axis=0, name=None):
    """The entries of x at ``index`` along ``axis`` (the gather op)."""
    return gather(x, index, axis)


def gather_nd(x, index, name=None):
    """out[t] = x[index[t, 0], ..., index[t, k-1]]."""
    return apply("gather_nd", x, _index_tensor(index))


def scatter(x, index, updates, overwrite=True, name=None):
    """x with rows ``index[i]`` replaced by ``updates[i]`` (summed when not overwrite)."""
    return apply("scatter", x, _index_tensor(index), updates, attrs={"overwrite": overwrite})


def _index_tensor(index):
    if is_tensor(index):
        return index
    from .creation import to_tensor
    return to_tensor(index, dtype="int64")


def slice(input, axes, starts, ends):
    """input[starts[i]:ends[i]] along each of ``axes``."""
    return apply("slice", input, attrs={"axes": _ints(axes), "starts": _ints(starts),
                                        "ends": _ints(ends)})


def strided_slice(x, axes, starts, ends, strides, name=None):
    """x[starts[i]:ends[i]:strides[i]] along each of ``axes`` (negative strides walk
    backwards)."""
    return apply("strided_slice", x, attrs={"axes": _ints(axes), "starts": _ints(starts),
                                            "ends": _ints(ends), "strides": _ints(strides)})


def flip(x, axis, name=None):
    """x with the order of its entries reversed along each of ``axis``."""
    axes = _ints(axis)
    big = 2**62
    return strided_slice(x, axes, [-1] * len(axes), [-big] * len(axes), [-1] * len(axes))
