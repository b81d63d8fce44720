"""skiff.MmapStorage (Paddle's): a file mapped into memory, read as Tensors that share the
mapping (no copy): ``MmapStorage(path, nbytes).get_slice(dtype, start, stop)``."""
import os

import numpy as np

from .. import _C
from . import arguments, dtype as dt


class MmapStorage:
    """The first ``nbytes`` bytes of the file ``filename``, mapped copy-on-write (a write
    into a slice changes this process's pages, never the file)."""

    def __init__(self, filename, nbytes):
        filename = os.fspath(filename)
        nbytes = arguments.integer("MmapStorage", "nbytes", nbytes)
        if not os.path.isfile(filename):
            raise FileNotFoundError(f"MmapStorage: no file {filename!r}")
        size = os.path.getsize(filename)
        if nbytes <= 0 or nbytes > size:
            raise arguments.ArgumentError(f"MmapStorage: nbytes {nbytes} must be in [1, {size}], "
                                          f"the size of {filename!r}")
        self._bytes = np.memmap(filename, dtype=np.uint8, mode="c", shape=(nbytes,))

    def get_slice(self, dtype, start, stop):
        """Elements start..stop-1 of the bytes read as ``dtype``, as a 1-D Tensor over the
        mapping."""
        name = dt.dtype_name(dtype)
        itemsize = np.dtype(dt.numpy_dtype(name)).itemsize
        count = self._bytes.size // itemsize
        start = arguments.integer("MmapStorage.get_slice", "start", start)
        stop = arguments.integer("MmapStorage.get_slice", "stop", stop)
        if not 0 <= start <= stop <= count:
            raise arguments.ArgumentError(
                f"MmapStorage.get_slice: [{start}, {stop}) is outside the {count} {name} "
                f"elements of the mapping")
        values = self._bytes[:count * itemsize].view(dt.numpy_dtype(name))[start:stop]
        return _C.tensor_from_array(np.asarray(values), False, "MmapStorage.get_slice")
