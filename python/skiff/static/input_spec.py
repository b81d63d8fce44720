"""InputSpec: the shape (None / -1 for dims known at run time), dtype and name of a
program input, as to_static and jit.save take them."""
import numpy as np

from ..framework import dtype as dt

__all__ = ["InputSpec"]


class InputSpec:
    """Describes one input: ``shape``, ``dtype`` (default float32) and ``name``."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if isinstance(shape, int):
            shape = [shape]
        self.shape = tuple(-1 if s is None else int(s) for s in shape)
        self.dtype = dt.to_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(list(ndarray.shape), np.asarray(ndarray).dtype, name)

    def batch(self, batch_size):
        return InputSpec((int(batch_size),) + self.shape, self.dtype, self.name)

    def unbatch(self):
        if not self.shape:
            raise ValueError("unbatch: the spec has no dims")
        return InputSpec(self.shape[1:], self.dtype, self.name)

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name})"
