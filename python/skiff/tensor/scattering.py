"""Writing into tensors at indices (Paddle's put_along_axis, scatter_add, index_add,
index_fill and their in-place forms), built on the scatter op over the flattened tensor."""
from .. import _C
from ..framework.core import apply
from .manipulation import _index_tensor, masked_fill, moveaxis, reshape, scatter, take_along_axis
from .scalars import constant, dtype_name_of, is_tensor
from .search import nonzero

__all__ = ["take_along_dim", "put_along_axis", "scatter_add", "scatter_add_", "scatter_",
           "index_add", "index_add_", "index_fill", "index_fill_", "masked_fill_", "argwhere"]

take_along_dim = take_along_axis


def _write(x, value):
    """``value`` written into x (in place; x keeps the history of value)."""
    return apply("assign", value, out=[x])


def _flat_positions(shape, idx, axis):
    """For an index tensor ``idx`` along ``axis`` of a tensor of ``shape``: the positions
    in the flattened tensor it names, as a 1-D int64 tensor (negative indices wrap)."""
    from .creation import arange
    rank = len(shape)
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    idx = apply("elementwise_mod", apply("cast", idx, attrs={"out_dtype": "int64"}),
                constant(shape[axis], "int64"))
    pos = apply("scale", idx, attrs={"scale": float(strides[axis])})
    for d in range(rank):
        if d != axis and idx.shape[d] > 1:
            view = [1] * rank
            view[d] = idx.shape[d]
            step = apply("scale", arange(0, idx.shape[d], 1, "int64"),
                         attrs={"scale": float(strides[d])})
            pos = apply("elementwise_add", pos, reshape(step, view))
    return reshape(pos, [-1])


def _filled_like(x, value):
    """A constant tensor shaped like x, built from x's shape (not from x itself, so no
    gradient path runs through it) when every dim is known."""
    if all(d >= 0 for d in x.shape):
        return apply("fill_constant", attrs={"shape": list(x.shape), "value": float(value),
                                             "dtype": dtype_name_of(x)})
    return apply("fill_any_like", x, attrs={"value": float(value)})


def _scatter_sum(like, pos, vals):
    """A tensor shaped like the 1-D ``like`` holding the sum of vals at each position."""
    zeros = _filled_like(like, 0.0)
    return apply("scatter", zeros, pos, vals, attrs={"overwrite": False})


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """arr with ``values`` written at ``indices`` along ``axis``: assigned, or combined
    with 'add' or 'mean' (include_self: arr's entry takes part)."""
    rank = len(arr.shape)
    axis = int(axis) % rank
    idx = _index_tensor(indices)
    if len(idx.shape) != rank:
        raise _C.Error(f"put_along_axis: indices must have arr's rank {rank}, got "
                       f"{list(idx.shape)}")
    if broadcast:
        shape = [n if d == axis or n != 1 else arr.shape[d]
                 for d, n in enumerate(idx.shape)]
        if shape != list(idx.shape):
            idx = apply("expand", idx, attrs={"shape": shape})
    name = dtype_name_of(arr)
    vals = values if is_tensor(values) else constant(values, name)
    if dtype_name_of(vals) != name:
        vals = apply("cast", vals, attrs={"out_dtype": name})
    if list(vals.shape) != list(idx.shape):
        vals = apply("expand", vals, attrs={"shape": list(idx.shape)})
    vals = reshape(vals, [-1])
    pos = _flat_positions(list(arr.shape), idx, axis)
    flat = reshape(arr, [-1])
    if reduce == "assign":
        out = scatter(flat, pos, vals, overwrite=True)
    elif reduce == "add":
        out = (apply("elementwise_add", flat, _scatter_sum(flat, pos, vals)) if include_self
               else scatter(flat, pos, vals, overwrite=False))
    elif reduce == "mean":
        out = _scatter_mean(flat, pos, vals, include_self)
    else:
        raise _C.Error(f"put_along_axis: reduce={reduce!r} is not supported (skiff has "
                       f"'assign', 'add' and 'mean')")
    return reshape(out, list(arr.shape))


def _scatter_mean(flat, pos, vals, include_self):
    sums = _scatter_sum(flat, pos, vals)
    counts = _scatter_sum(flat, pos, _filled_like(vals, 1.0))
    if include_self:
        one = constant(1, dtype_name_of(flat))
        return apply("elementwise_div", apply("elementwise_add", flat, sums),
                     apply("elementwise_add", counts, one))
    touched = apply("greater_than", counts, constant(0, dtype_name_of(flat)))
    safe = apply("elementwise_max", counts, constant(1, dtype_name_of(flat)))
    return apply("where", touched, apply("elementwise_div", sums, safe), flat)


def _src_like(src, index):
    """src cut down to index's shape (scatter_add reads only that corner of src)."""
    if not is_tensor(src) or list(src.shape) == list(index.shape):
        return src
    rank = len(index.shape)
    return apply("slice", src, attrs={"axes": list(range(rank)), "starts": [0] * rank,
                                      "ends": list(index.shape)})


def scatter_add(input, dim, index, src):
    """input with src[i][j]... added at index along ``dim`` (torch's scatter_add)."""
    index = _index_tensor(index)
    return put_along_axis(input, index, _src_like(src, index), dim, "add", True, False)


def scatter_add_(input, dim, index, src):
    """scatter_add, in place."""
    return _write(input, scatter_add(input, dim, index, src))


def scatter_(x, *args, **kwargs):
    """In place: scatter_(x, index, updates, overwrite=True) as scatter does, or
    scatter_(x, dim, index, src=None, reduce=None, value=None) as put_along_axis."""
    if (args and isinstance(args[0], int)) or "dim" in kwargs:
        return _write(x, _torch_scatter(x, *args, **kwargs))
    return _write(x, scatter(x, *args, **kwargs))


def _torch_scatter(x, dim, index, src=None, reduce=None, value=None):
    values = src if src is not None else value
    if values is None:
        raise TypeError("scatter_: give src or value")
    mode = {None: "assign", "add": "add"}.get(reduce)
    if mode is None:
        raise _C.Error(f"scatter_: reduce={reduce!r} is not supported (None or 'add')")
    index = _index_tensor(index)
    return put_along_axis(x, index, _src_like(values, index), dim, mode, True, False)


def index_add(x, index, axis, value, alpha=1, name=None):
    """x with value's slices (times alpha) added to x's slices ``index`` along ``axis``
    (repeated indices add up)."""
    rank = len(x.shape)
    axis = int(axis) % rank
    if alpha != 1:
        value = apply("scale", value, attrs={"scale": float(alpha)})
    front = moveaxis(x, axis, 0) if axis else x
    vals = moveaxis(value, axis, 0) if axis else value
    added = apply("scatter", _filled_like(front, 0.0),
                  _index_tensor(index), vals, attrs={"overwrite": False})
    out = apply("elementwise_add", front, added)
    return moveaxis(out, 0, axis) if axis else out


def index_add_(x, index, axis, value, alpha=1, name=None):
    """index_add, in place."""
    return _write(x, index_add(x, index, axis, value, alpha))


def index_fill(x, index, axis, value, name=None):
    """x with its slices ``index`` along ``axis`` set to ``value`` (a number or a 0-d
    tensor)."""
    from .creation import arange
    rank = len(x.shape)
    axis = int(axis) % rank
    n = x.shape[axis]
    idx = apply("elementwise_mod", apply("cast", _index_tensor(index),
                                         attrs={"out_dtype": "int64"}), constant(n, "int64"))
    hit = apply("equal", reshape(arange(0, n, 1, "int64"), [-1, 1]), reshape(idx, [1, -1]))
    picked = apply("reduce_max", apply("cast", hit, attrs={"out_dtype": "int32"}),
                   attrs={"dim": [1], "keep_dim": False, "reduce_all": False})
    view = [1] * rank
    view[axis] = n
    mask = reshape(apply("cast", picked, attrs={"out_dtype": "bool"}), view)
    if is_tensor(value) and dtype_name_of(value) != dtype_name_of(x):
        value = apply("cast", value, attrs={"out_dtype": dtype_name_of(x)})
    return masked_fill(x, mask, value)


def index_fill_(x, index, axis, value, name=None):
    """index_fill, in place."""
    return _write(x, index_fill(x, index, axis, value))


def masked_fill_(x, mask, value, name=None):
    """masked_fill, in place."""
    return _write(x, masked_fill(x, mask, value))


def argwhere(input):
    """The indices of input's nonzero entries, int64 [n, rank]."""
    return nonzero(input)
