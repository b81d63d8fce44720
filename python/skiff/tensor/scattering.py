"""Writing into tensors at indices (Paddle's put_along_axis, scatter_add, index_add,
index_fill, index_put, scatter_nd, masked_scatter and their in-place forms), built on the
scatter op over the flattened tensor; and writing into slices and diagonals
(slice_scatter, select_scatter, diagonal_scatter) on set_value and scatter."""
from .. import _C
from .. import _C_ops
from ..framework import arguments
from ..framework.tensor_params import ANY, INDEX, TENSOR, accepts
from .manipulation import _index_tensor, masked_fill, moveaxis, reshape, scatter, take_along_axis
from .scalars import constant, dtype_name_of, is_tensor
from .search import nonzero
from .joining import broadcast_shapes
from .joining import broadcast_tensors
from .manipulation import _ints
from .axes import _diagonal
from .creation import arange

__all__ = ["take_along_dim", "put_along_axis", "scatter_add", "scatter_add_", "scatter_",
           "index_add", "index_add_", "index_fill", "index_fill_", "masked_fill_",
           "index_put", "index_put_", "scatter_nd", "scatter_nd_add", "masked_scatter",
           "masked_scatter_", "slice_scatter", "select_scatter", "diagonal_scatter",
           "scatter_reduce"]

take_along_dim = take_along_axis


def _write(x, value):
    """``value`` written into x (in place; x keeps the history of value)."""
    return _C_ops.assign(value, out=[x])


def _flat_positions(shape, idx, axis):
    """For an index tensor ``idx`` along ``axis`` of a tensor of ``shape``: the positions
    in the flattened tensor it names, as a 1-D int64 tensor (negative indices wrap)."""
    rank = len(shape)
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    idx = _C_ops.elementwise_mod(_C_ops.cast(idx, out_dtype="int64"),
                                 constant(shape[axis], "int64"))
    pos = _C_ops.scale(idx, scale=float(strides[axis]))
    for d in range(rank):
        if d != axis and idx.shape[d] > 1:
            view = [1] * rank
            view[d] = idx.shape[d]
            step = _C_ops.scale(arange(0, idx.shape[d], 1, "int64"), scale=float(strides[d]))
            pos = _C_ops.elementwise_add(pos, reshape(step, view))
    return reshape(pos, [-1])


def _filled_like(x, value):
    """A constant tensor shaped like x, built from x's shape (not from x itself, so no
    gradient path runs through it) when every dim is known."""
    if all(d >= 0 for d in x.shape):
        return _C_ops.fill_constant(shape=list(x.shape), value=float(value), dtype=dtype_name_of(x))
    return _C_ops.fill_any_like(x, value=float(value))


def _scatter_sum(like, pos, vals):
    """A tensor shaped like the 1-D ``like`` holding the sum of vals at each position."""
    zeros = _filled_like(like, 0.0)
    return _C_ops.scatter(zeros, pos, vals, overwrite=False)


# Paddle's names of put_along_axis's reductions -> the scatter_reduce op's.
_REDUCTIONS = {"add": "sum", "sum": "sum", "mul": "prod", "multiply": "prod", "prod": "prod",
               "mean": "mean", "amin": "amin", "amax": "amax"}


@accepts(indices=INDEX)
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """arr with ``values`` written at ``indices`` along ``axis``: assigned, or combined
    by 'add', 'mul' (or 'multiply'), 'mean', 'amin' or 'amax' (include_self: arr's entry
    takes part)."""
    rank = len(arr.shape)
    axis = arguments.axis("put_along_axis", axis, rank)
    if reduce != "assign" and reduce not in _REDUCTIONS:
        raise arguments.ArgumentError(
            f"put_along_axis: reduce must be 'assign', 'add', 'mul', 'multiply', 'mean', "
            f"'amin' or 'amax', got {reduce!r}")
    idx = _index_tensor(indices)
    if len(idx.shape) != rank:
        raise _C.Error(f"put_along_axis: indices must have arr's rank {rank}, got "
                       f"{list(idx.shape)}")
    if broadcast:
        shape = [n if d == axis or n != 1 else arr.shape[d]
                 for d, n in enumerate(idx.shape)]
        if shape != list(idx.shape):
            idx = _C_ops.expand(idx, shape=shape)
    return _scatter_along(arr, idx, values, axis, reduce, include_self)


def _scatter_along(arr, idx, values, axis, reduce, include_self):
    """put_along_axis's work once idx has arr's rank: values (cast, broadcast to idx's
    shape) assigned or reduced into arr at idx along axis."""
    name = dtype_name_of(arr)
    vals = values if is_tensor(values) else constant(values, name)
    if dtype_name_of(vals) != name:
        vals = _C_ops.cast(vals, out_dtype=name)
    if list(vals.shape) != list(idx.shape):
        vals = _C_ops.expand(vals, shape=list(idx.shape))
    vals = reshape(vals, [-1])
    pos = _flat_positions(list(arr.shape), idx, axis)
    flat = reshape(arr, [-1])
    if reduce == "assign":
        out = scatter(flat, pos, vals, overwrite=True)
    else:
        out = _C_ops.scatter_reduce(flat, pos, vals, reduce=_REDUCTIONS[reduce],
                                    include_self=bool(include_self))
    return reshape(out, list(arr.shape))


@accepts(index=INDEX)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """input with src[i] combined into input at index[i] along ``dim`` (torch's
    scatter_reduce): reduce is 'sum', 'prod', 'mean', 'amin' or 'amax'; index has input's
    rank and src at least index's extent in each dim."""
    if reduce not in ("sum", "prod", "mean", "amin", "amax"):
        raise arguments.ArgumentError(f"scatter_reduce: reduce must be 'sum', 'prod', 'mean', "
                                      f"'amin' or 'amax', got {reduce!r}")
    rank = len(input.shape)
    axis = arguments.axis("scatter_reduce", dim, rank, "dim")
    idx = _index_tensor(index)
    if len(idx.shape) != rank or len(src.shape) != rank:
        raise arguments.ArgumentError(
            f"scatter_reduce: index {list(idx.shape)} and src {list(src.shape)} must have "
            f"input's rank {rank}")
    if any(i > s for i, s in zip(idx.shape, src.shape)):
        raise arguments.ArgumentError(f"scatter_reduce: index {list(idx.shape)} reaches past "
                                      f"src {list(src.shape)}")
    return _scatter_along(input, idx, _src_like(src, idx), axis, reduce, include_self)


def _src_like(src, index):
    """src cut down to index's shape (scatter_add reads only that corner of src)."""
    if not is_tensor(src) or list(src.shape) == list(index.shape):
        return src
    rank = len(index.shape)
    return _C_ops.slice(src, axes=list(range(rank)), starts=[0] * rank, ends=list(index.shape))


def scatter_add(input, dim, index, src):
    """input with src[i][j]... added at index along ``dim`` (torch's scatter_add)."""
    dim = arguments.axis("scatter_add", dim, len(input.shape), "dim")
    index = _index_tensor(index)
    return put_along_axis(input, index, _src_like(src, index), dim, "add", True, False)


def scatter_add_(input, dim, index, src):
    """scatter_add, in place."""
    return _write(input, scatter_add(input, dim, index, src))


def scatter_(x, *args, **kwargs):
    """In place: scatter_(x, index, updates, overwrite=True) as scatter does, or
    scatter_(x, dim, index, src=None, reduce=None, value=None) as put_along_axis."""
    torch_form = (args and isinstance(args[0], int)) or "dim" in kwargs
    form = _torch_scatter if torch_form else scatter
    return _write(x, arguments.forward_call("scatter_", form, x, *args, **kwargs))


def _torch_scatter(x, dim, index, src=None, reduce=None, value=None):
    values = src if src is not None else value
    if values is None:
        raise TypeError("scatter_: give src or value")
    mode = {None: "assign", "add": "add"}.get(reduce)
    if mode is None:
        raise _C.Error(f"scatter_: reduce={reduce!r} is not supported (None or 'add')")
    index = _index_tensor(index)
    return put_along_axis(x, index, _src_like(values, index), dim, mode, True, False)


@accepts(value=TENSOR)
def index_add(x, index, axis, value, alpha=1, name=None):
    """x with value's slices (times alpha) added to x's slices ``index`` along ``axis``
    (repeated indices add up)."""
    axis = arguments.axis("index_add", axis, len(x.shape))
    if alpha != 1:
        value = _C_ops.scale(value, scale=float(alpha))
    front = moveaxis(x, axis, 0) if axis else x
    vals = moveaxis(value, axis, 0) if axis else value
    added = _C_ops.scatter(_filled_like(front, 0.0), _index_tensor(index), vals, overwrite=False)
    out = _C_ops.elementwise_add(front, added)
    return moveaxis(out, 0, axis) if axis else out


@accepts(value=TENSOR)
def index_add_(x, index, axis, value, alpha=1, name=None):
    """index_add, in place."""
    return _write(x, index_add(x, index, axis, value, alpha))


def index_fill(x, index, axis, value, name=None):
    """x with its slices ``index`` along ``axis`` set to ``value`` (a number or a 0-d
    tensor)."""
    rank = len(x.shape)
    axis = arguments.axis("index_fill", axis, rank)
    n = x.shape[axis]
    idx = _C_ops.elementwise_mod(_C_ops.cast(_index_tensor(index),
                                               out_dtype="int64"), constant(n, "int64"))
    hit = _C_ops.equal(reshape(arange(0, n, 1, "int64"), [-1, 1]), reshape(idx, [1, -1]))
    picked = _C_ops.reduce_max(_C_ops.cast(hit, out_dtype="int32"), dim=[1], keep_dim=False,
                               reduce_all=False)
    view = [1] * rank
    view[axis] = n
    mask = reshape(_C_ops.cast(picked, out_dtype="bool"), view)
    if is_tensor(value) and dtype_name_of(value) != dtype_name_of(x):
        value = _C_ops.cast(value, out_dtype=dtype_name_of(x))
    return masked_fill(x, mask, value)


def index_fill_(x, index, axis, value, name=None):
    """index_fill, in place."""
    return _write(x, index_fill(x, index, axis, value))


def masked_fill_(x, mask, value, name=None):
    """masked_fill, in place."""
    return _write(x, masked_fill(x, mask, value))


def _cast_to(value, x):
    name = dtype_name_of(x)
    return value if dtype_name_of(value) == name else _C_ops.cast(value, out_dtype=name)


def _put(fn, x, columns, value, accumulate):
    """x with ``value`` written (or added) at x[columns[0], ..., columns[k-1]]: the int64
    index tensors broadcast together to B; value broadcasts to B + x.shape[k:]."""
    shape = list(x.shape)
    k = len(columns)
    if k > len(shape):
        raise ValueError(f"{fn}: {k} indices for x of rank {len(shape)}")
    try:
        batch = broadcast_shapes(*[c.shape for c in columns])
    except ValueError:
        raise ValueError(f"{fn}: the index shapes {[list(c.shape) for c in columns]} do not "
                         f"broadcast") from None
    trailing = shape[k:]
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    pos = None
    for d, col in enumerate(columns):
        col = _C_ops.elementwise_mod(_C_ops.cast(col, out_dtype="int64"),
                                     constant(shape[d], "int64"))
        term = _C_ops.scale(col, scale=float(strides[d]))
        pos = term if pos is None else _C_ops.elementwise_add(pos, term)
    if list(pos.shape) != batch:
        pos = _C_ops.expand(pos, shape=batch)
    inner = 1
    for n in trailing:
        inner *= n
    if inner != 1:
        offsets = reshape(arange(0, inner, 1, "int64"), [1] * len(batch) + [inner])
        pos = _C_ops.elementwise_add(_C_ops.unsqueeze(pos, axes=[len(batch)]), offsets)
    value = value if is_tensor(value) else constant(value, dtype_name_of(x))
    target = batch + trailing
    try:
        broadcast_shapes(value.shape, target)
    except ValueError:
        raise ValueError(f"{fn}: value {list(value.shape)} does not broadcast to the indexed "
                         f"shape {target}") from None
    value = _cast_to(value, x)
    if list(value.shape) != target:
        value = _C_ops.expand(value, shape=target)
    flat, pos, vals = reshape(x, [-1]), reshape(pos, [-1]), reshape(value, [-1])
    if accumulate:
        out = _C_ops.elementwise_add(flat, _scatter_sum(flat, pos, vals))
    else:
        out = scatter(flat, pos, vals, overwrite=True)
    return reshape(out, shape)


def _index_columns(fn, indices):
    """The int index tensors of ``indices``, a bool mask standing for the int columns of
    its nonzero entries (one per mask dim)."""
    columns = []
    for i, t in enumerate(indices):
        t = _index_tensor(t)
        name = dtype_name_of(t)
        if name == "bool":
            nz = nonzero(t)
            columns += [_C_ops.slice(nz, axes=[1], starts=[d], ends=[d + 1], decrease_axis=[1])
                        for d in range(len(t.shape))]
        elif name in ("int32", "int64"):
            columns.append(t)
        else:
            raise TypeError(f"{fn}: indices[{i}] must be an int or bool tensor, got {name}")
    return columns


@accepts(indices=INDEX)  # a tuple or list of index tensors
def index_put(x, indices, value, accumulate=False, name=None):
    """x with x[indices] = value (numpy's advanced indexing by the tuple of index
    tensors), or x[indices] += value with accumulate (repeated places add up)."""
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"index_put: indices must be a tuple or list of tensors, got "
                        f"{type(indices).__name__}")
    return _put("index_put", x, _index_columns("index_put", indices), value, accumulate)


@accepts(indices=INDEX)
def index_put_(x, indices, value, accumulate=False, name=None):
    """index_put, written into x."""
    return _write(x, index_put(x, indices, value, accumulate))


def scatter_nd_add(x, index, updates, name=None):
    """x with updates[i] added at x[index[i]] (index [..., k] picks a slice of x's
    trailing dims; repeated places add up); updates: index.shape[:-1] + x.shape[k:]."""
    index = _index_tensor(index)
    if not index.shape:
        raise ValueError("scatter_nd_add: index must have at least 1 dim")
    k = index.shape[-1]
    want = list(index.shape[:-1]) + list(x.shape[k:])
    if list(updates.shape) != want:
        raise ValueError(f"scatter_nd_add: updates must be {want} for index "
                         f"{list(index.shape)} and x {list(x.shape)}, got "
                         f"{list(updates.shape)}")
    columns = [_C_ops.slice(index, axes=[-1], starts=[d], ends=[d + 1],
                            decrease_axis=[len(index.shape) - 1])
               for d in range(k)]
    return _put("scatter_nd_add", x, columns, updates, True)


def scatter_nd(index, updates, shape, name=None):
    """A zero tensor of ``shape`` (updates' dtype) with updates added at index, as
    scatter_nd_add."""
    zeros = _C_ops.fill_constant(shape=_ints(shape, "scatter_nd"), value=0.0,
                                 dtype=dtype_name_of(updates))
    return scatter_nd_add(zeros, index, updates)


@accepts(value=TENSOR)
def masked_scatter(x, mask, value, name=None):
    """x (broadcast with mask) with the places where mask holds filled, in row-major
    order, by value's leading entries."""
    if dtype_name_of(mask) != "bool":
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got "
                        f"{dtype_name_of(mask)}")
    if dtype_name_of(value) != dtype_name_of(x):
        raise TypeError(f"masked_scatter: value ({dtype_name_of(value)}) must have x's dtype "
                        f"({dtype_name_of(x)})")
    x, mask = broadcast_tensors([x, mask])
    flat_mask = reshape(mask, [-1])
    order = _C_ops.cumsum(_C_ops.cast(flat_mask, out_dtype="int64"), axis=0, exclusive=True)
    source = reshape(value, [-1])
    order = _C_ops.clip(order, min=0.0, max=float(source.shape[0] - 1))
    picked = _C_ops.gather(source, order, axis=0)
    return reshape(_C_ops.where(flat_mask, picked, reshape(x, [-1])), list(x.shape))


def masked_scatter_(x, mask, value, name=None):
    """masked_scatter, written into x."""
    out = masked_scatter(x, mask, value)
    if list(out.shape) != list(x.shape):
        raise ValueError(f"masked_scatter_: mask {list(mask.shape)} would broadcast x "
                         f"{list(x.shape)} to {list(out.shape)}")
    return _write(x, out)


@accepts(value=TENSOR)
def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """x with the slice x[starts:ends:strides] (along each of ``axes``) replaced by value
    (broadcast to the slice)."""
    axes = arguments.axes("slice_scatter", axes, len(x.shape), "axes")
    starts, ends, strides = [_ints(v) for v in (starts, ends, strides)]
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ValueError(f"slice_scatter: axes, starts, ends and strides must have one "
                         f"length, got {axes}, {starts}, {ends}, {strides}")
    if any(s == 0 for s in strides):
        raise ValueError(f"slice_scatter: strides must be non-zero, got {strides}")
    return _C_ops.set_value(x, _cast_to(value, x), axes=axes, starts=starts, ends=ends,
                            steps=strides)


@accepts(index=ANY, values=TENSOR)
def select_scatter(x, values, axis, index, name=None):
    """x with its entry ``index`` along ``axis`` (a slice of x without that axis)
    replaced by values."""
    axis = arguments.axis("select_scatter", axis, len(x.shape))
    n = x.shape[axis]
    index = arguments.integer("select_scatter", "index", index)
    if not -n <= index < n:
        raise ValueError(f"select_scatter: index {index} is out of range for axis {axis} of "
                         f"size {n}")
    index %= n
    return _C_ops.set_value(x, _cast_to(values, x), axes=[axis], starts=[index], ends=[index + 1],
                            steps=[1], decrease_axes=[axis])


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its ``offset``-th diagonal in the plane of axis1 and axis2 replaced by y
    (shaped as diagonal(x, offset, axis1, axis2): the other dims, then the diagonal)."""
    rank = len(x.shape)
    want = list(_diagonal("diagonal_scatter", x, offset, axis1, axis2).shape)
    a1 = arguments.axis("diagonal_scatter", axis1, rank, "axis1")
    a2 = arguments.axis("diagonal_scatter", axis2, rank, "axis2")
    offset = int(offset)
    if list(y.shape) != want:
        raise ValueError(f"diagonal_scatter: y must have the diagonal's shape {want}, got "
                         f"{list(y.shape)}")
    rest = [d for d in range(rank) if d not in (a1, a2)]
    n1, n2 = x.shape[a1], x.shape[a2]
    count = want[-1]
    if count == 0:
        return _C_ops.assign(x)
    r0, c0 = (0, offset) if offset >= 0 else (-offset, 0)
    # the plane's entries as rows, the other dims as columns; the diagonal's rows replaced
    perm = [a1, a2] + rest
    rows = reshape(_C_ops.transpose(x, axis=perm), [n1 * n2, -1])
    pos = _C_ops.scale(arange(0, count, 1, "int64"), scale=float(n2 + 1), bias=float(r0 * n2 + c0))
    updates = reshape(moveaxis(_cast_to(y, x), -1, 0), [count, -1])
    out = reshape(scatter(rows, pos, updates, overwrite=True),
                  [n1, n2] + [x.shape[d] for d in rest])
    inverse = [perm.index(d) for d in range(rank)]
    return _C_ops.transpose(out, axis=inverse)
