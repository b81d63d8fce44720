"""Paddle's DenseTensor: the values held by a Tensor (Tensor.get_tensor()) or by a scope
variable (scope.find_var(name).get_tensor()). np.array(t) reads them, t.set(array, place)
writes them, shape() and _dtype() describe them."""
import numpy as np

from .. import _C
from . import dtype as dt


class DenseTensor:
    """Values read by ``read()`` (a Tensor, or None while there are none) and written by
    ``write(value)`` (an array or a Tensor)."""

    def __init__(self, read, write, name="the tensor"):
        self._read, self._write, self._name = read, write, name

    def _value(self):
        t = self._read()
        if t is None:
            raise _C.Error(f"{self._name} holds no value")
        return t

    def shape(self):
        return list(self._value().shape)

    def _dtype(self):
        return self._value().dtype

    def _is_initialized(self):
        return self._read() is not None

    def _numel(self):
        return int(np.prod(self.shape(), dtype=np.int64))

    def set(self, value, place=None):
        """Makes the holder hold ``value`` (an array or a Tensor)."""
        self._write(value)

    def __array__(self, dtype=None, copy=None):
        a = self._value().numpy()
        return a if dtype is None else a.astype(dtype)

    def __str__(self):
        t = self._value()
        return (f"  - place: Place(cpu)\n  - shape: {list(t.shape)}\n  - layout: NCHW\n"
                f"  - dtype: {dt.dtype_name(t.dtype)}\n"
                f"  - data: {np.array2string(t.numpy(), separator=' ')}\n")

    __repr__ = __str__
