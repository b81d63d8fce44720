"""Tensor methods Paddle 3.x added for torch-style code: requires_grad, the memory
description (element_size, itemsize, stride, is_contiguous, layout, data_ptr), new_*
creation, to, repeat, split_with_sizes and the diagonal fills. Installed on Tensor by
tensor/methods.py. A skiff Tensor is always dense and row-major, so contiguous() is the
tensor itself and strides follow from the shape."""
import numpy as np

from .. import _C_ops
from ..framework import arguments, dtype as dt
from . import creation, inplace, manipulation, random

_ITEMSIZE = {"bfloat16": 2, "bool": 1}

# The Tensor methods this module defines (installed by tensor/methods.py).
METHODS = ["element_size", "stride", "get_strides", "is_contiguous", "contiguous", "data_ptr",
           "new_ones", "new_zeros", "new_full", "new_empty", "to", "repeat",
           "split_with_sizes", "fill_diagonal_", "fill_diagonal_tensor",
           "fill_diagonal_tensor_", "random_"]


def element_size(x):
    """Bytes per element."""
    name = x.dtype.name
    return _ITEMSIZE.get(name) or np.dtype(name).itemsize


def stride(x, dim=None):
    """Elements to step per dim (row-major), or of dim ``dim``."""
    shape, out, step = list(x.shape), [], 1
    for n in reversed(shape):
        out.insert(0, step)
        step *= max(n, 1)
    if dim is None:
        return out
    return out[arguments.axis("Tensor.stride", dim, len(shape))]


def get_strides(x):
    return stride(x)


def is_contiguous(x):
    """Always True: skiff's tensors are dense and row-major."""
    return True


def contiguous(x):
    """x itself (already contiguous)."""
    return x


def data_ptr(x):
    """The address of x's first element."""
    return x._data_ptr()


def new_full(x, size, fill_value, dtype=None, device=None, requires_grad=False, name=None):
    """A tensor of ``size`` filled with ``fill_value``, of x's dtype unless given."""
    out = creation.full(size, fill_value, x.dtype if dtype is None else dtype)
    out.stop_gradient = not requires_grad
    return out


def _size(size):
    """A size given as one list/tuple/Size or as separate ints (x.new_ones(2, 3))."""
    return list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else \
        list(size)


def new_ones(x, *size, dtype=None, device=None, requires_grad=False, name=None):
    return new_full(x, _size(size), 1, dtype, device, requires_grad)


def new_zeros(x, *size, dtype=None, device=None, requires_grad=False, name=None):
    return new_full(x, _size(size), 0, dtype, device, requires_grad)


def new_empty(x, *size, dtype=None, device=None, requires_grad=False, name=None):
    """A tensor of ``size`` (its values unspecified: zeros here)."""
    return new_full(x, _size(size), 0, dtype, device, requires_grad)


def to(x, *args, **kwargs):
    """x as another dtype: to(dtype), to(device), to(device, dtype), to(other_tensor), with
    Paddle's keywords (device, dtype, blocking, copy); devices other than the CPU's are
    taken but change nothing."""
    dtype = kwargs.get("dtype")
    for a in args:
        if hasattr(a, "dtype") and hasattr(a, "shape"):
            dtype = a.dtype
        elif not isinstance(a, (str, bool)) or _is_dtype_name(a):
            dtype = a if not isinstance(a, bool) else dtype
    if dtype is None or dt.dtype_name(dtype) == x.dtype.name:
        return x
    return x.astype(dtype)


def _is_dtype_name(value):
    try:
        dt.dtype_name(value)
        return True
    except (TypeError, ValueError):
        return False


def repeat(x, *repeats):
    """x tiled ``repeats`` times per dim (torch's repeat: Paddle's tile)."""
    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple)):
        repeats = repeats[0]
    return manipulation.tile(x, list(repeats))


def split_with_sizes(x, split_sizes, dim=0):
    """x split along ``dim`` into pieces of ``split_sizes``."""
    return manipulation.split(x, arguments.integers("split_with_sizes", "split_sizes",
                                                    split_sizes), dim)


def _diagonal_mask(shape, offset, wrap):
    """The positions fill_diagonal_ writes: (i, i + offset) of a matrix (of (i, i, ...)
    when all of more than two dims are equal); a tall matrix restarts below every
    square block when ``wrap``."""
    mask = np.zeros(shape, dtype=bool)
    if len(shape) > 2:
        if len(set(shape)) != 1:
            raise ValueError(f"fill_diagonal_: a tensor of more than 2 dims must have all "
                             f"dims equal, got {list(shape)}")
        for i in range(shape[0]):
            mask[(i,) * len(shape)] = True
        return mask
    rows, cols = shape
    if wrap and rows > cols:
        mask.reshape(-1)[::cols + 1] = True
        return mask
    for r in range(rows):
        if 0 <= r + offset < cols:
            mask[r, r + offset] = True
    return mask


def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """Writes ``value`` on x's diagonal (shifted by ``offset``) in place."""
    mask = _diagonal_mask(list(x.shape), int(offset), bool(wrap))
    cond = creation.to_tensor(mask)
    filled = creation.full_like(x, value)
    return inplace.inplace("where", x, cond, filled, x)


def _tensor_on_diagonal(x, y, offset, dim1, dim2):
    """x with y written on its diagonal over (dim1, dim2), shifted by ``offset``."""
    if len(x.shape) != 2 or (dim1, dim2) not in ((0, 1), (-2, -1), (0, -1), (-2, 1)):
        raise ValueError("fill_diagonal_tensor: skiff handles 2-D tensors over dims (0, 1)")
    arguments.tensor("fill_diagonal_tensor", "y", y)
    rows, cols = x.shape
    mask = np.zeros([rows, cols], dtype=bool)
    spread = np.zeros([rows, cols], dtype=np.int64)
    r = np.arange(max(0, -offset), max(0, min(rows, cols - offset)))  # rows on the diagonal
    mask[r, r + offset], spread[r, r + offset] = True, np.arange(len(r))
    values = _C_ops.gather(manipulation.flatten(y), creation.to_tensor(spread.reshape(-1)))
    values = manipulation.reshape(values, [rows, cols])
    return creation.to_tensor(mask), values


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """A copy of x with the entries of y on its diagonal (shifted by ``offset``)."""
    cond, values = _tensor_on_diagonal(x, y, int(offset), dim1, dim2)
    return _C_ops.where(cond, values, x)


def fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1, name=None):
    """fill_diagonal_tensor written into x."""
    cond, values = _tensor_on_diagonal(x, y, int(offset), dim1, dim2)
    return inplace.inplace("where", x, cond, values, x)


def random_(x, from_=0, to=None, generator=None, name=None):
    """Fills x in place with integers drawn uniformly from [from_, to) (to None: up to
    2**24 for float32, 2**31 otherwise)."""
    high = to
    if high is None:
        high = 2 ** 24 if x.dtype.name in ("float32", "bfloat16") else 2 ** 31
    drawn = random.randint(int(from_), int(high), list(x.shape), "int64")
    return inplace.inplace("cast", x, drawn, attrs={"out_dtype": x.dtype.name})
