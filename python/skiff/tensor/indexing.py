"""Tensor.__getitem__ / __setitem__ with numpy's rules: ints, slices with steps, None,
Ellipsis, negative indices, integer tensors or lists (gathers) and boolean masks.
Basic items become one slice (or strided_slice) op; advanced ones gather / gather_nd;
assignment writes through set_value, where or scatter, in place."""
import atexit
import numbers

import numpy as np

from .. import _C
from .. import _C_ops
from ..framework.core import apply, eager_op
from ..framework.mode import mode
from .scalars import constant, dtype_name_of, is_tensor
from .creation import to_tensor
from .inplace import inplace

_BIG = 2**62
_assign = eager_op("assign")


class IndexOutOfRange(_C.Error, IndexError):
    """An integer index past the end of its dim (an IndexError too, so loops stop)."""


def _is_mask(it):
    return (isinstance(it, np.ndarray) and it.dtype == np.bool_) or (
        is_tensor(it) and dtype_name_of(it) == "bool")


def _is_int(it):
    return isinstance(it, (numbers.Integral, np.integer)) and not isinstance(it, bool)


def _normalize(index, rank):
    """The index as a list of items (lists become numpy arrays), Ellipsis expanded."""
    items = list(index) if isinstance(index, tuple) else [index]
    items = [np.asarray(it) if isinstance(it, (list, tuple)) else it for it in items]
    for it in items:
        if isinstance(it, np.ndarray) and it.dtype != np.bool_ and it.dtype.kind not in "iu":
            raise _C.Error(f"index: an array index must hold ints or bools, got {it.dtype}")
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise _C.Error("index: at most one Ellipsis (...)")
    consumed = sum(len(it.shape) if _is_mask(it) else 1 for it in items
                   if it is not None and it is not Ellipsis)
    if consumed > rank:
        raise _C.Error(f"index: {consumed} indices for a tensor of rank {rank}")
    fill = [slice(None)] * (rank - consumed)
    at = next((i for i, it in enumerate(items) if it is Ellipsis), len(items))
    return items[:at] + fill + items[at + 1:]


def _plan(items):
    """What the int, slice and None items do: (op type and attrs of the slice or None,
    axes to insert, [(axis, int index)] to bounds-check, [(axis in the result, item)]
    for the advanced items: arrays and tensors)."""
    axes, starts, ends, steps, drop, new_axes, ints, advanced = [], [], [], [], [], [], [], []
    i_in = i_out = 0
    for it in items:
        if it is None:
            new_axes.append(i_out)
            i_out += 1
        elif isinstance(it, slice):
            step = 1 if it.step is None else int(it.step)
            if step == 0:
                raise _C.Error("index: slice step cannot be zero")
            if it.start is not None or it.stop is not None or step != 1:
                axes.append(i_in)
                starts.append(int(it.start) if it.start is not None else
                              (0 if step > 0 else _BIG))
                ends.append(int(it.stop) if it.stop is not None else
                            (_BIG if step > 0 else -_BIG))
                steps.append(step)
            i_in += 1
            i_out += 1
        elif _is_int(it):
            i = int(it)
            ints.append((i_in, i))
            axes.append(i_in)
            starts.append(i)
            ends.append(i + 1 if i != -1 else _BIG)
            steps.append(1)
            drop.append(i_in)
            i_in += 1
        elif isinstance(it, np.ndarray) or is_tensor(it):
            width = len(it.shape) if _is_mask(it) else 1
            advanced.append((i_out, it))
            i_in += width
            i_out += width
        else:
            raise _C.Error(f"index: cannot index with {type(it).__name__}")
    op = None
    if axes:
        attrs = {"axes": axes, "starts": starts, "ends": ends, "decrease_axis": drop}
        if any(s != 1 for s in steps):
            attrs["strides"] = steps
            op = ("strided_slice", attrs)
        else:
            op = ("slice", attrs)
    return op, new_axes, ints, advanced


def _check_ints(shape, ints):
    for axis, i in ints:
        dim = shape[axis]
        if dim >= 0 and not -dim <= i < dim:
            raise IndexOutOfRange(f"index {i} is out of range for axis {axis} of size {dim}")


def _basic(x, items):
    """Applies the int, slice and None items. Returns the result and [(axis, item)] for
    the advanced items, each at its axis in the result."""
    op, new_axes, ints, advanced = _plan(items)
    _check_ints(x.shape, ints)
    out = x
    if op is not None:
        out = apply(op[0], out, attrs=op[1])
    if new_axes:
        out = _C_ops.unsqueeze(out, axes=new_axes)
    return out, advanced


# Eager x[...] with only ints, slices of ints, None and Ellipsis: the ops by index and rank.
_basic_ops = {}
atexit.register(_basic_ops.clear)


def _basic_key(index):
    """A hashable form of a basic index, or None for anything else."""
    items = index if index.__class__ is tuple else (index,)
    key = []
    for it in items:
        c = it.__class__
        if c is int or it is None or it is Ellipsis:
            key.append(it)
        elif c is slice:
            a, b, step = it.start, it.stop, it.step
            if not ((a is None or a.__class__ is int) and (b is None or b.__class__ is int)
                    and (step is None or step.__class__ is int)):
                return None
            key.append((a, b, step))
        else:
            return None
    return tuple(key)


def _basic_eager(x, index, key):
    shape = x.shape
    entry = _basic_ops.get((len(shape), key))
    if entry is None:
        if len(_basic_ops) > 4096:
            _basic_ops.clear()
        op, new_axes, ints, _ = _plan(_normalize(index, len(shape)))
        entry = _basic_ops[(len(shape), key)] = (
            eager_op(*op) if op else None,
            eager_op("unsqueeze", {"axes": new_axes}) if new_axes else None, ints)
    sliced, unsqueeze, ints = entry
    for axis, i in ints:
        if not -shape[axis] <= i < shape[axis]:
            _check_ints(shape, ints)
    out = sliced(x) if sliced is not None else x
    if unsqueeze is not None:
        out = unsqueeze(out)
    return out if out is not x else _assign(x)


def _index_tensor(it, dim):
    """An int64 index tensor for an axis of size ``dim``, negative entries wrapped."""
    if isinstance(it, np.ndarray):
        arr = it.astype(np.int64)
        if dim >= 0:
            bad = (arr < -dim) | (arr >= dim)
            if bad.any():
                raise IndexOutOfRange(f"index {int(arr[bad][0])} is out of range for an axis "
                                      f"of size {dim}")
            arr = np.where(arr < 0, arr + dim, arr)
        return _C.tensor_from_array(np.ascontiguousarray(arr))
    if dtype_name_of(it) not in ("int32", "int64"):
        raise _C.Error(f"index: an index tensor must be int32, int64 or bool, got "
                       f"{dtype_name_of(it)}")
    if dim < 0:
        return it
    zero = constant(0, dtype_name_of(it))
    wrapped = _C_ops.scale(it, scale=1.0, bias=float(dim))
    return _C_ops.where(_C_ops.less_than(it, zero), wrapped, it)


def _nonzero_columns(mask):
    """A boolean mask as one int64 index tensor [n] per mask dim (numpy's rule)."""
    if isinstance(mask, np.ndarray):
        return [_C.tensor_from_array(np.ascontiguousarray(c)) for c in np.nonzero(mask)]
    idx = _C_ops.where_index(mask)
    return [_C_ops.slice(idx, axes=[1], starts=[i], ends=[i + 1],
                         decrease_axis=[1]) for i in range(len(mask.shape))]


def _advanced(out, advanced):
    """Gathers the advanced items of ``_basic``'s result (numpy's placement rule)."""
    shape = list(out.shape)
    pairs = []  # (axis, int64 index tensor)
    for axis, it in advanced:
        if _is_mask(it):
            if len(advanced) == 1 and axis == 0:
                return _C_ops.gather_nd(out, _mask_indices(it))
            pairs += [(axis + k, c) for k, c in enumerate(_nonzero_columns(it))]
        else:
            pairs.append((axis, _index_tensor(it, shape[axis])))
    if len(pairs) == 1:
        axis, idx = pairs[0]
        if len(idx.shape) <= 1:
            return _C_ops.gather(out, idx, axis=axis)
        flat = _C_ops.reshape(idx, shape=[-1])
        got = _C_ops.gather(out, flat, axis=axis)
        return _C_ops.reshape(got, shape=shape[:axis] + list(idx.shape) +
                                            shape[axis + 1:])
    adv_axes = [a for a, _ in pairs]
    bshape = list(np.broadcast_shapes(*[tuple(i.shape) for _, i in pairs]))
    cols = [_C_ops.expand(i, shape=bshape) if list(i.shape) != bshape else i
            for _, i in pairs]
    index = _C_ops.stack(cols, axis=-1)
    rest = [a for a in range(len(shape)) if a not in adv_axes]
    front = _C_ops.transpose(out, axis=adv_axes + rest) \
        if adv_axes + rest != list(range(len(shape))) else out
    got = _C_ops.gather_nd(front, index)
    contiguous = adv_axes == list(range(adv_axes[0], adv_axes[0] + len(adv_axes)))
    if not contiguous or adv_axes[0] == 0:
        return got
    nb, first = len(bshape), adv_axes[0]
    perm = list(range(nb, nb + first)) + list(range(nb)) + \
        list(range(nb + first, len(got.shape)))
    return _C_ops.transpose(got, axis=perm)


def _mask_indices(mask):
    if isinstance(mask, np.ndarray):
        return _C.tensor_from_array(np.ascontiguousarray(np.argwhere(mask).astype(np.int64)))
    return _C_ops.where_index(mask)


def getitem(x, index):
    """x[index] with numpy's semantics; differentiable."""
    if not mode.static:
        key = index if index.__class__ is int else _basic_key(index)
        if key is not None:
            return _basic_eager(x, index, key)
    items = _normalize(index, len(x.shape))
    out, advanced = _basic(x, items)
    if advanced:
        return _advanced(out, advanced)
    return out if out is not x else _C_ops.assign(x)


def _value_tensor(value, x):
    if is_tensor(value):
        name = dtype_name_of(x)
        return value if dtype_name_of(value) == name else _C_ops.cast(value, out_dtype=name)
    if isinstance(value, (numbers.Number, np.number, bool)):
        return constant(value, dtype_name_of(x))
    return to_tensor(np.asarray(value), dtype=dtype_name_of(x))


def setitem(x, index, value):
    """x[index] = value, in place (value broadcast to the indexed part)."""
    items = _normalize(index, len(x.shape))
    value = _value_tensor(value, x)
    advanced = [it for it in items if isinstance(it, np.ndarray) or is_tensor(it)]
    if not advanced:
        attrs = _set_value_attrs(x, [it for it in items if it is not None])
        return inplace("set_value", x, x, value, attrs=attrs)
    rest = [it for it in items if it is not advanced[0]]
    full = all(isinstance(it, slice) and it == slice(None) for it in rest)
    if len(advanced) == 1 and full and _is_mask(advanced[0]) and items[0] is advanced[0]:
        mask = advanced[0]
        if isinstance(mask, np.ndarray):
            mask = _C.tensor_from_array(np.ascontiguousarray(mask))
        extra = len(x.shape) - len(mask.shape)
        if extra:
            mask = _C_ops.unsqueeze(mask, axes=list(range(len(mask.shape),
                                                                     len(x.shape))))
        return inplace("where", x, mask, value, x)
    if len(advanced) == 1 and full and items[0] is advanced[0]:
        idx = _index_tensor(advanced[0], x.shape[0])
        if len(idx.shape) != 1:
            idx = _C_ops.reshape(idx, shape=[-1])
        updates = _C_ops.expand(value, shape=[idx.shape[0]] + list(x.shape[1:]))
        return inplace("scatter", x, x, idx, updates, attrs={"overwrite": True})
    raise _C.Error("index assignment: advanced indices (tensors, lists, masks) are supported "
                   "as the first and only non-trivial index: x[mask] = v or x[ids] = v")


def _set_value_attrs(x, items):
    shape = list(x.shape)
    axes, starts, ends, steps, drop = [], [], [], [], []
    for axis, it in enumerate(items):
        if isinstance(it, slice):
            if it == slice(None):
                continue
            step = 1 if it.step is None else int(it.step)
            if step == 0:
                raise _C.Error("index assignment: slice step cannot be zero")
            axes.append(axis)
            starts.append(int(it.start) if it.start is not None else (0 if step > 0 else _BIG))
            ends.append(int(it.stop) if it.stop is not None else
                        (_BIG if step > 0 else -_BIG))
            steps.append(step)
        else:
            i, dim = int(it), shape[axis]
            if dim >= 0 and not -dim <= i < dim:
                raise IndexOutOfRange(f"index {i} is out of range for axis {axis} of size {dim}")
            axes.append(axis)
            starts.append(i)
            ends.append(i + 1 if i != -1 else _BIG)
            steps.append(1)
            drop.append(axis)
    return {"axes": axes, "starts": starts, "ends": ends, "steps": steps,
            "decrease_axes": drop}
