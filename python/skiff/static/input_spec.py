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
        """Puts ``batch_size`` (an int, -1 for one known at run time, or a list of one int)
        in front of the shape, in place; returns this spec."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: batch_size as a list must hold one int, "
                                 f"got {list(batch_size)}")
            batch_size = batch_size[0]
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise TypeError(f"InputSpec.batch: batch_size must be an int, got "
                            f"{type(batch_size).__name__}")
        if batch_size < -1:
            raise ValueError(f"InputSpec.batch: batch_size must be -1 (known at run time) or "
                             f"at least 0, got {batch_size}")
        self.shape = (int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Removes the first dim of the shape, in place; returns this spec."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec has no dims to remove")
        self.shape = self.shape[1:]
        return self

    def __eq__(self, other):
        return (isinstance(other, InputSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")
