"""Tensor methods over a tensor's memory in Paddle's spellings: set_ (take another
tensor's memory, or a strided window of it), resize_, reconstruct_from_, get_tensor (the
DenseTensor holding the values) and create_tensor. Installed on Tensor by
tensor/methods.py.

A skiff tensor is dense and row-major: set_ with the source's own layout makes x a view
of it (a write into one shows in the other); a stride or an offset that is not the
source's own layout gathers that window into new memory."""
import numpy as np

from ..framework import arguments
from ..framework.arguments import is_tensor
from ..framework.dense_tensor import DenseTensor
from . import creation, manipulation

# The Tensor methods this module defines (installed by tensor/methods.py).
METHODS = ["set_", "resize_", "reconstruct_from_", "get_tensor", "_is_shared_buffer_with"]


def _row_major(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return strides


def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """x takes ``source``'s memory (none: x becomes empty), seen with ``shape`` and
    ``stride`` (in elements) from ``offset`` (in bytes); returns x."""
    if source is None:
        x._set_value(creation.empty([0], x.dtype))
        return x
    if not is_tensor(source):
        raise arguments.ArgumentTypeError(f"Tensor.set_: source must be a Tensor, got "
                                          f"{type(source).__name__}")
    if source.dtype != x.dtype:
        raise arguments.ArgumentError(f"Tensor.set_: source is {source.dtype.name} but x is "
                                      f"{x.dtype.name}")
    shape = list(source.shape) if shape is None else \
        arguments.integers("Tensor.set_", "shape", shape)
    stride = _row_major(shape) if stride is None else \
        arguments.integers("Tensor.set_", "stride", stride)
    if len(stride) != len(shape):
        raise arguments.ArgumentError(f"Tensor.set_: stride {stride} needs one entry per dim of "
                                      f"shape {shape}")
    itemsize = source.element_size()
    offset = arguments.integer("Tensor.set_", "offset", offset)
    if offset < 0 or offset % itemsize:
        raise arguments.ArgumentError(f"Tensor.set_: offset {offset} must be a non-negative "
                                      f"multiple of the element size {itemsize} bytes")
    start, size = offset // itemsize, int(source.size)
    numel = int(np.prod(shape, dtype=np.int64))
    last = start + sum((n - 1) * s for n, s in zip(shape, stride)) if numel else start
    if numel and (last >= size or min(stride, default=0) < 0):
        raise arguments.ArgumentError(
            f"Tensor.set_: shape {shape} with stride {stride} from element {start} reaches "
            f"element {last}, past the {size} elements of source")
    if start == 0 and numel == size and stride == _row_major(shape):
        x._view_of(manipulation.reshape(source, shape))
        return x
    index = np.full(shape, start, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, stride)):
        index += (np.arange(n, dtype=np.int64) * s).reshape([-1] + [1] * (len(shape) - axis - 1))
    flat = manipulation.reshape(source, [-1])
    picked = manipulation.gather(flat, creation.to_tensor(index.reshape(-1)))
    x._set_value(manipulation.reshape(picked, shape))
    return x


def resize_(x, shape, fill_zero=False, name=None):
    """x resized to ``shape`` in place: its first elements (row-major) kept, new ones 0
    (Paddle leaves them unspecified unless fill_zero); returns x."""
    shape = arguments.integers("Tensor.resize_", "shape", shape)
    if any(n < 0 for n in shape):
        raise arguments.ArgumentError(f"Tensor.resize_: shape {shape} has a negative dim")
    numel, size = int(np.prod(shape, dtype=np.int64)), int(x.size)
    flat = manipulation.reshape(x, [-1])
    if numel <= size:
        flat = manipulation.slice(flat, [0], [0], [numel])
    else:
        flat = manipulation.concat([flat, creation.zeros([numel - size], x.dtype)])
    x._set_value(manipulation.reshape(flat, shape))
    return x


def reconstruct_from_(x, other):
    """x holds ``other``'s value (shared); returns x."""
    if not is_tensor(other):
        raise arguments.ArgumentTypeError(f"Tensor.reconstruct_from_: other must be a Tensor, "
                                          f"got {type(other).__name__}")
    x._set_value(other)
    return x


def _is_shared_buffer_with(x, other):
    """True when x and ``other`` hold the same memory."""
    return bool(is_tensor(other) and x._share_memory_with(other))


def get_tensor(x):
    """The DenseTensor holding x's values (set() writes into x, keeping its dtype)."""
    def write(value):
        value = value if is_tensor(value) else creation.to_tensor(np.asarray(value))
        x._set_value(value if value.dtype == x.dtype else value.astype(x.dtype))
    return DenseTensor(lambda: x, write)


def create_tensor(dtype, name=None, persistable=False):
    """An empty tensor (shape [0]) of ``dtype``, to be filled later (assign, set_value)."""
    out = creation.empty([0], dtype)
    if name is not None:
        out.name = name
    out.persistable = bool(persistable)
    return out

