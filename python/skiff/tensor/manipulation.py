"""Reshaping, joining, splitting, broadcasting and gathering tensors (Paddle's
paddle.tensor.manipulation)."""

from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.core import apply
from ..framework.mode import mode as _mode
from ..framework.tensor_params import TENSOR, TENSORS, accepts, self_checked
from .math import run_cached
from .run_dims import reshape_spec
from .scalars import is_tensor
from .creation import to_tensor
from .creation import arange
from .creation import full
from .creation import _positions
from .scalars import dtype_name_of
from .scalars import constant

__all__ = ["reshape", "reshape_", "transpose", "flatten", "squeeze", "unsqueeze", "concat",
           "split", "chunk", "stack", "unstack", "unbind", "expand", "expand_as", "broadcast_to",
           "tile", "gather", "gather_nd", "scatter", "index_select", "slice", "strided_slice",
           "flip", "squeeze_", "unsqueeze_", "roll", "moveaxis", "take_along_axis", "masked_fill",
           "flatten_", "rank", "shape", "diag", "narrow", "crop", "take",
           "index_sample", "rot90", "unfold", "shard_index"]


def _ints(v, fn="reshape", param="shape"):
    """A list of Python ints from an int, a sequence (of ints or 1-element integer
    tensors) or an integer tensor: the argument ``param`` of the public function ``fn``."""
    if v.__class__ is list:
        for a in v:
            if a.__class__ is not int:
                break
        else:
            return v
    return arguments.integers(fn, param, v)


@self_checked
def reshape(x, shape, name=None):
    """x viewed with ``shape`` (0 copies x's dim, one -1 is inferred)."""
    if _mode.static and isinstance(shape, (list, tuple)):
        shape = reshape_spec(arguments.tensor("reshape", "x", x), shape)
    shape = _ints(shape)
    try:
        return run_cached("reshape", tuple(shape), {"shape": shape}, x)
    except Error:
        arguments.tensor("reshape", "x", x)
        raise


def reshape_(x, shape, name=None):
    """reshape, in place: x takes the new shape."""
    return _C_ops.reshape(x, out=[x], shape=_ints(shape, "reshape_"))


@self_checked
def transpose(x, perm, name=None):
    """x with its axes permuted: output axis i is x's axis perm[i]."""
    perm = arguments.op_axes("transpose", perm, x, "perm")
    try:
        return run_cached("transpose", tuple(perm), {"axis": perm}, x)
    except Error:
        arguments.tensor("transpose", "x", x)
        arguments.axes("transpose", perm, len(x.shape), "perm")
        raise


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """x with dims start_axis..stop_axis merged into one."""
    if start_axis.__class__ is not int or stop_axis.__class__ is not int or _mode.static:
        _flatten_attrs("flatten", x, start_axis, stop_axis)
    try:
        return _C_ops.flatten(x, start_axis=start_axis, stop_axis=stop_axis)
    except Error:
        _flatten_attrs("flatten", x, start_axis, stop_axis)
        raise


def _flatten_attrs(fn, x, start_axis, stop_axis):
    """flatten's attributes: start_axis and stop_axis as ints, checked against x's rank."""
    rank = len(x.shape)
    start = arguments.axis(fn, start_axis, rank, "start_axis", scalar=True)
    stop = arguments.axis(fn, stop_axis, rank, "stop_axis", scalar=True)
    if stop < start:
        raise arguments.ArgumentError(f"{fn}: stop_axis {stop_axis} comes before start_axis "
                                      f"{start_axis} for a {rank}-D tensor")
    return {"start_axis": arguments.integer(fn, "start_axis", start_axis),
            "stop_axis": arguments.integer(fn, "stop_axis", stop_axis)}


def squeeze(x, axis=None, name=None):
    """x without its size-1 dims (only those in ``axis`` when given)."""
    return _C_ops.squeeze(x, axes=_squeezed("squeeze", x, axis))


def _squeezed(fn, x, axis):
    """squeeze's axes: none (every size-1 dim) or ``axis`` checked against x's rank."""
    return [] if axis is None else arguments.axes(fn, axis, len(x.shape), unique=False)


def squeeze_(x, axis=None, name=None):
    return _C_ops.squeeze(x, out=[x], axes=_squeezed("squeeze_", x, axis))


def unsqueeze(x, axis, name=None):
    """x with size-1 dims inserted at ``axis`` (an int or a list, applied in turn)."""
    axes = _inserted("unsqueeze", x, axis) if _mode.static else \
        arguments.integers("unsqueeze", "axis", axis)
    try:
        return run_cached("unsqueeze", tuple(axes), {"axes": axes}, x)
    except Error:
        _inserted("unsqueeze", x, axes)
        raise


def _inserted(fn, x, axis):
    """unsqueeze's axes, each an int in [-r - 1, r] for the rank r it is inserted into."""
    axes = arguments.integers(fn, "axis", axis)
    rank = len(x.shape)
    for a in axes:
        arguments.axis(fn, a, rank + 1)
        rank += 1
    return axes


def unsqueeze_(x, axis, name=None):
    return _C_ops.unsqueeze(x, out=[x], axes=_inserted("unsqueeze_", x, axis))


@accepts(x=TENSORS)
def concat(x, axis=0, name=None):
    """The tensors of ``x`` joined along ``axis``."""
    return _joined("concat", x, axis, 0)


def _joined(op, x, axis, extra):
    """concat or stack (``op``, whose result has ``extra`` more dims than each of x)."""
    if not x:
        raise arguments.ArgumentError(f"{op}: x must hold at least one Tensor")
    axis = arguments.op_axis(op, axis, x[0], extra=extra)
    try:
        return apply(op, x if x.__class__ is list else list(x), attrs={"axis": axis})
    except Error:
        arguments.axis(op, axis, len(x[0].shape) + extra)
        raise


def split(x, num_or_sections, axis=0, name=None):
    """x cut along ``axis`` into ``num_or_sections`` equal parts, or parts of the given
    sizes (one may be -1: the rest). Returns a list."""
    return _split("split", x, num_or_sections, axis, "num_or_sections")


def _split(fn, x, num_or_sections, axis, param):
    """split(x, num_or_sections, axis) for the public function ``fn``: ``param`` (an int n
    in [1, dim], or sizes >= -1) checked against the axis it cuts."""
    axis = arguments.axis(fn, axis, len(x.shape))
    dim = x.shape[axis]
    if isinstance(num_or_sections, (list, tuple)) or is_tensor(num_or_sections):
        sections = arguments.counts(fn, param, num_or_sections, low=-1)
        n = len(sections)
        attrs = {"sections": sections, "axis": axis}
    else:
        high = max(dim, 1) if 0 <= dim <= arguments.MAX_OUTPUTS else arguments.MAX_OUTPUTS
        limit = f"the size of axis {axis}" if high == max(dim, 1) else \
            "the outputs an op can have"
        n = arguments.count(fn, param, num_or_sections, 1, high, limit)
        attrs = {"num": n, "axis": axis}
    return list(_C_ops.split(x, **attrs, output_counts=[n])[0])


def chunk(x, chunks, axis=0, name=None):
    """x cut into ``chunks`` equal parts along ``axis``."""
    return _split("chunk", x, arguments.integer("chunk", "chunks", chunks), axis, "chunks")


@accepts(x=TENSORS)
def stack(x, axis=0, name=None):
    """The tensors of ``x`` (one shape) stacked along a new axis."""
    return _joined("stack", x, axis, 1)


def unstack(x, axis=0, num=None):
    """The slices of x along ``axis``, each without that axis (a list)."""
    fn = "unstack"
    axis = arguments.axis(fn, axis, len(x.shape))
    dim = x.shape[axis]
    n = dim if num is None else arguments.count(fn, "num", num, 0, dim if dim >= 0 else None,
                                                f"the size of axis {axis}")
    if n < 0:
        raise Error(f"unstack: the size of axis {axis} of {list(x.shape)} is unknown; "
                    f"pass num")
    if n > arguments.MAX_OUTPUTS:
        raise arguments.ArgumentError(f"unstack: axis {axis} has {n} entries, more than the "
                                      f"{arguments.MAX_OUTPUTS} outputs an op can have")
    if n == 0:
        return []
    parts = split(x, n, axis)
    return [_C_ops.squeeze(p, axes=[axis]) for p in parts]


unbind = unstack


def expand(x, shape, name=None):
    """x broadcast to ``shape`` (-1 keeps x's dim)."""
    return _C_ops.expand(x, shape=_ints(shape, "expand"))


def broadcast_to(x, shape, name=None):
    """x broadcast to ``shape`` (-1 keeps x's dim)."""
    return _C_ops.broadcast_to(x, shape=_ints(shape, "broadcast_to"))


def expand_as(x, y, name=None):
    """x broadcast to y's shape."""
    return _C_ops.expand(x, shape=list(y.shape))


def tile(x, repeat_times, name=None):
    """x repeated repeat_times[i] times along dim i."""
    times = _ints(repeat_times, "tile", "repeat_times") if is_tensor(repeat_times) else \
        arguments.counts("tile", "repeat_times", repeat_times, low=1)
    return _C_ops.tile(x, repeat_times=times)


def gather(x, index, axis=None, name=None):
    """The entries of x at ``index`` (1-D integer tensor) along ``axis`` (0 by default)."""
    axis = 0 if axis is None else arguments.op_axis("gather", axis, x, scalar=True)
    try:
        return _C_ops.gather(x, _index_tensor(index), axis=axis)
    except Error:
        arguments.axis("gather", axis, len(x.shape), scalar=True)
        raise


def index_select(x, index, axis=0, name=None):
    """The entries of x at ``index`` along ``axis`` (the gather op)."""
    return gather(x, index, arguments.axis("index_select", axis, len(x.shape), scalar=True))


def gather_nd(x, index, name=None):
    """out[t] = x[index[t, 0], ..., index[t, k-1]]."""
    return _C_ops.gather_nd(x, _index_tensor(index))


def scatter(x, index, updates, overwrite=True, name=None):
    """x with rows ``index[i]`` replaced by ``updates[i]`` (summed when not overwrite)."""
    return _C_ops.scatter(x, _index_tensor(index), updates, overwrite=overwrite)


def _index_tensor(index):
    if is_tensor(index):
        return index
    return to_tensor(index, dtype="int64")


def slice(input, axes, starts, ends):
    """input[starts[i]:ends[i]] along each of ``axes``."""
    axes = arguments.axes("slice", axes, len(input.shape), "axes")
    return _C_ops.slice(input, axes=axes, starts=_ints(starts, "slice", "starts"),
                        ends=_ints(ends, "slice", "ends"))


def strided_slice(x, axes, starts, ends, strides, name=None):
    """x[starts[i]:ends[i]:strides[i]] along each of ``axes`` (negative strides walk
    backwards)."""
    axes = arguments.axes("strided_slice", axes, len(x.shape), "axes")
    fn = "strided_slice"
    return _C_ops.strided_slice(x, axes=axes, starts=_ints(starts, fn, "starts"),
                                ends=_ints(ends, fn, "ends"), strides=_ints(strides, fn, "strides"))


def flip(x, axis, name=None):
    """x with the order of its entries reversed along each of ``axis``."""
    axes = arguments.axes("flip", axis, len(x.shape))
    n, big = len(axes), 2**62
    return _C_ops.strided_slice(x, axes=axes, starts=[-1] * n, ends=[-big] * n, strides=[-1] * n)


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    return _C_ops.flatten(x, out=[x], **_flatten_attrs("flatten_", x, start_axis, stop_axis))


def roll(x, shifts, axis=None, name=None):
    """x with its entries shifted by ``shifts`` along ``axis`` (of the flattened x when
    None), wrapping around."""
    shifts = arguments.integers("roll", "shifts", shifts)
    if axis is None:
        if len(shifts) != 1:
            raise arguments.ArgumentError(f"roll: shifts must be one int when axis is None, "
                                          f"got {shifts}")
        return reshape(roll(flatten(x), shifts, 0), list(x.shape))
    axes = arguments.axes("roll", axis, len(x.shape), unique=False, scalar=True)
    if len(shifts) != len(axes):
        raise arguments.ArgumentError(f"roll: shifts {shifts} and axis {axes} must have one length")
    if not x.shape:
        return _C_ops.assign(x)
    out = x
    for shift, ax in zip(shifts, axes):
        n = x.shape[ax]
        shift = shift % n if n > 0 else 0
        if shift:
            tail = _C_ops.slice(out, axes=[ax], starts=[n - shift], ends=[n])
            head = _C_ops.slice(out, axes=[ax], starts=[0], ends=[n - shift])
            out = _C_ops.concat([tail, head], axis=ax)
    return out


def moveaxis(x, source, destination, name=None):
    """x with its axes ``source`` moved to positions ``destination``."""
    rank = len(x.shape)
    src = arguments.axes("moveaxis", source, rank, "source")
    dst = arguments.axes("moveaxis", destination, rank, "destination")
    if len(src) != len(dst):
        raise arguments.ArgumentError(f"moveaxis: source {source} and destination "
                                      f"{destination} must have one length")
    rest = [a for a in range(rank) if a not in src]
    perm = [None] * rank
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    return transpose(x, [p if p is not None else next(it) for p in perm])


@accepts(indices=TENSOR)
def take_along_axis(arr, indices, axis, broadcast=True):
    """out[..., i, ...] = arr[..., indices[..., i, ...], ...] along ``axis``: indices has
    arr's rank; its other dims broadcast with arr's."""
    rank = len(arr.shape)
    axis = arguments.axis("take_along_axis", axis, rank)
    if len(indices.shape) != rank:
        raise arguments.ArgumentError(f"take_along_axis: indices must have arr's rank {rank}, "
                                      f"got shape {list(indices.shape)}")
    shape = [max(a, b) for a, b in zip(arr.shape, indices.shape)]
    shape[axis] = indices.shape[axis]
    idx = _C_ops.expand(_index_tensor(indices), shape=shape)
    if dtype_name_of(idx) != "int64":  # stacked with the int64 positions of the other dims
        idx = _C_ops.cast(idx, out_dtype="int64")
    cols = []
    for d in range(rank):
        if d == axis:
            cols.append(idx)
            continue
        view = [1] * rank
        view[d] = shape[d]
        pos = _C_ops.reshape(arange(0, shape[d], 1, "int64"), shape=view)
        cols.append(_C_ops.expand(pos, shape=shape))
    if arr.shape[:axis] + arr.shape[axis + 1:] != shape[:axis] + shape[axis + 1:]:
        target = list(shape)
        target[axis] = arr.shape[axis]
        arr = _C_ops.expand(arr, shape=target)
    return _C_ops.gather_nd(arr, _C_ops.stack(cols, axis=-1))


def masked_fill(x, mask, value, name=None):
    """x with the entries where ``mask`` holds set to ``value``."""
    if not is_tensor(value):
        value = constant(value, dtype_name_of(x))
    return _C_ops.where(mask, value, x)


def rank(input):
    """The number of dims of ``input``, as a 0-d int32 tensor."""
    return full([], len(input.shape), "int32")


def shape(input):
    """The dims of ``input`` as a 1-D int64 tensor (in a program: its dims when it runs,
    for dims unknown while building)."""
    return _C_ops.shape(input)


def diag(x, offset=0, padding_value=0, name=None):
    """For 1-D x: a square matrix with x on its ``offset``-th diagonal; for 2-D x: that
    diagonal of x as a 1-D tensor."""
    if len(x.shape) not in (1, 2):
        raise arguments.ArgumentError(f"diag: x must be 1-D or 2-D, got shape {list(x.shape)}")
    offset = arguments.integer("diag", "offset", offset)
    if len(x.shape) == 1:
        k = offset
        n = x.shape[0] + abs(k)
        on = _C_ops.equal(_C_ops.elementwise_sub(_positions(n, [1, -1]),
                                                   _positions(n, [-1, 1])),
                          full([], k, "int64"))  # j - i == k
        padded = x if k == 0 else _C_ops.concat([x, full([abs(k)], 0, dtype_name_of(x))], axis=0)
        # above the main diagonal entry (i, i + k) holds x[i]; below, (j - k, j) holds x[j]
        along = _C_ops.reshape(padded, shape=[-1, 1] if k >= 0 else [1, -1])
        values = _C_ops.expand(along, shape=[n, n])
        return _C_ops.where(on, values, full([], padding_value, dtype_name_of(x)))
    rows, cols = x.shape
    start_r, start_c = (0, offset) if offset >= 0 else (-offset, 0)
    count = max(0, min(rows - start_r, cols - start_c))
    r = _C_ops.scale(_positions(count, [-1]), scale=1.0, bias=float(start_r))
    c = _C_ops.scale(_positions(count, [-1]), scale=1.0, bias=float(start_c))
    return _C_ops.gather_nd(x, _C_ops.stack([r, c], axis=-1))


def narrow(input, dim, start, length):
    """input[start:start + length] along ``dim`` (a negative start counts from the end)."""
    dim = arguments.axis("narrow", dim, len(input.shape), "dim")
    n = input.shape[dim]
    start = arguments.integer("narrow", "start", start)
    if start < 0:
        start += n
    length = arguments.integer("narrow", "length", length)
    if start < 0 or length < 0 or start + length > n:
        raise ValueError(f"narrow: start {start} and length {length} do not fit dim {dim} "
                         f"of size {n}")
    return _C_ops.slice(input, axes=[dim], starts=[start], ends=[start + length])


def crop(x, shape=None, offsets=None, name=None):
    """The box of x of size ``shape`` (-1: to the end of that dim) starting at ``offsets``
    (zeros by default)."""
    dims = list(x.shape)
    sizes = dims if shape is None else _ints(shape, "crop")
    starts = [0] * len(dims) if offsets is None else _ints(offsets, "crop", "offsets")
    if len(sizes) != len(dims) or len(starts) != len(dims):
        raise ValueError(f"crop: shape {sizes} and offsets {starts} must have x's rank "
                         f"{len(dims)}")
    ends = []
    for d, (n, size, start) in enumerate(zip(dims, sizes, starts)):
        end = n if size == -1 else start + size
        if start < 0 or size < -1 or (n >= 0 and end > n):
            raise ValueError(f"crop: offsets[{d}] = {start} and shape[{d}] = {size} do not "
                             f"fit dim {d} of size {n}")
        ends.append(end)
    return _C_ops.slice(x, axes=list(range(len(dims))), starts=starts, ends=ends)


def _two_axes(fn, value, rank, param):
    """``value`` as two different axes in [0, rank)."""
    axes = arguments.axes(fn, value, rank, param)
    if len(axes) != 2:
        raise arguments.ArgumentError(f"{fn}: {param} must hold 2 axes, got {value}")
    return axes


def take(x, index, mode="raise", name=None):
    """The entries of the flattened x at ``index`` (shaped like index). mode 'raise':
    indices in [-n, n) (negative ones wrap), 'wrap': taken modulo n, 'clip': clamped to
    [0, n - 1]."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    index = _index_tensor(index)
    if dtype_name_of(index) not in ("int32", "int64"):
        raise TypeError(f"take: index must be an int32 or int64 tensor, got "
                        f"{dtype_name_of(index)}")
    flat = flatten(x)
    n = flat.shape[0]
    idx = _C_ops.cast(reshape(index, [-1]), out_dtype="int64")
    if mode == "clip":
        idx = _C_ops.clip(idx, min=0.0, max=float(n - 1))
    else:
        if mode == "raise" and not _mode.static and idx.shape[0]:
            low = _C_ops.reduce_min(idx, reduce_all=True).item()
            high = _C_ops.reduce_max(idx, reduce_all=True).item()
            if low < -n or high >= n:
                raise ValueError(f"take: index {low if low < -n else high} is out of range "
                                 f"for x with {n} elements (mode='raise')")
        idx = _C_ops.elementwise_mod(idx, constant(n, "int64"))
    return reshape(_C_ops.gather(flat, idx, axis=0), list(index.shape))


@accepts(index=TENSOR)
def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for 2-D x [N, M] and index [N, K]."""
    if len(x.shape) != 2 or len(index.shape) != 2:
        raise ValueError(f"index_sample: x and index must be 2-D, got {list(x.shape)} and "
                         f"{list(index.shape)}")
    if x.shape[0] != index.shape[0]:
        raise ValueError(f"index_sample: index must have x's {x.shape[0]} rows, got "
                         f"{index.shape[0]}")
    return take_along_axis(x, index, 1)


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 (Paddle's signature)
    """x rotated by k * 90 degrees in the plane of ``axes``, from axes[0] toward axes[1]."""
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"rot90: x must have at least 2 dims, got {list(x.shape)}")
    a, b = _two_axes("rot90", axes, rank, "axes")
    k = arguments.integer("rot90", "k", k) % 4
    if k == 0:
        return _C_ops.assign(x)
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(flip(x, [b if k == 1 else a]), perm)


def unfold(x, axis, size, step, name=None):
    """The windows of ``size`` entries, ``step`` apart, along ``axis``: that dim becomes
    the count of windows and a last dim of ``size`` holds each window."""
    shape = list(x.shape)
    axis = arguments.axis("unfold", axis, len(shape))
    size = arguments.integer("unfold", "size", size)
    step = arguments.integer("unfold", "step", step)
    if size < 1 or step < 1 or size > shape[axis]:
        raise arguments.ArgumentError(f"unfold: size must be in [1, {shape[axis]}] and step "
                                      f"positive, got size={size}, step={step}")
    count = (shape[axis] - size) // step + 1
    picks = [w * step + i for w in range(count) for i in range(size)]
    windows = reshape(index_select(x, to_tensor(picks, dtype="int64"), axis),
                      shape[:axis] + [count, size] + shape[axis + 1:])
    return moveaxis(windows, axis + 1, -1)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Each index v of ``input`` (int32/int64, last dim 1, values in [0, index_num)) as its
    offset within shard ``shard_id`` of the ``nshards`` equal shards of [0, index_num)
    (shard size ceil(index_num / nshards)): v - shard_id * size where v falls in that
    shard, else ``ignore_value``."""
    fn = "shard_index"
    arguments.tensor(fn, "input", input)
    arguments.dtype_in(fn, "input", input, ("int32", "int64"))
    shape = list(input.shape)
    if len(shape) < 2 or shape[-1] != 1:
        raise arguments.ArgumentError(f"{fn}: input must have at least 2 dims and a last dim "
                                      f"of 1, got shape {shape}")
    index_num = arguments.count(fn, "index_num", index_num, low=1)
    nshards = arguments.count(fn, "nshards", nshards, low=1)
    shard_id = arguments.count(fn, "shard_id", shard_id, high=nshards - 1,
                               limit="nshards - 1")
    ignore_value = arguments.integer(fn, "ignore_value", ignore_value)
    if not _mode.static and input.size:
        low = int(_C_ops.reduce_min(input, reduce_all=True).item())
        high = int(_C_ops.reduce_max(input, reduce_all=True).item())
        if low < 0 or high >= index_num:
            raise arguments.ArgumentError(f"{fn}: the indices of input must be in [0, "
                                          f"index_num = {index_num}), got values in "
                                          f"[{low}, {high}]")
    size = (index_num + nshards - 1) // nshards
    start = shard_id * size
    name = dtype_name_of(input)
    inside = _C_ops.logical_and(_C_ops.greater_equal(input, constant(start, name)),
                                _C_ops.less_than(input, constant(start + size, name)))
    return _C_ops.where(inside, _C_ops.scale(input, scale=1.0, bias=float(-start)),
                        _C_ops.fill_any_like(input, value=float(ignore_value)))
