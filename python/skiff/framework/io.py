"""skiff.save / skiff.load: state dicts (and nested dicts, lists and numbers holding
Tensors) as a pickle of numpy arrays, the format of PaddlePaddle's .pdparams and .pdopt
files, so files move between the two. Loading only rebuilds containers, numbers,
strings and numpy arrays: a file cannot make it run other code."""
import collections
import io
import os
import pickle

import numpy as np

from .. import _C
from .dense_tensor import DenseTensor

__all__ = ["save", "load"]

# The only globals a file may name: numpy arrays, dtypes and scalars, ordered dicts.
_ALLOWED = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
}
try:
    from numpy._core import multiarray as _multiarray
except ImportError:  # numpy 1.x
    from numpy.core import multiarray as _multiarray
for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
    for _name in ("_reconstruct", "scalar"):
        _ALLOWED[(_module, _name)] = getattr(_multiarray, _name)


def _to_saved(obj):
    if isinstance(obj, _C.Tensor):
        return np.array(obj.numpy(), copy=True)
    if isinstance(obj, DenseTensor):  # a scope variable's or a Tensor's values
        return np.array(obj, copy=True)
    if hasattr(obj, "block") and hasattr(obj, "desc"):  # a static Variable
        raise _C.Error(f"skiff.save: '{obj.name}' is a static program variable; save the "
                       "program's values with skiff.static.save instead")
    if isinstance(obj, dict):
        out = collections.OrderedDict() if isinstance(obj, collections.OrderedDict) else {}
        for k, v in obj.items():
            out[k] = _to_saved(v)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_saved(v) for v in obj)
    return obj


def _is_file(path):
    """Whether ``path`` is an open binary file object (io.BytesIO, open(..., "wb"))
    rather than a path."""
    return hasattr(path, "write") or hasattr(path, "read")


def save(obj, path, protocol=4, **configs):
    """Writes ``obj`` (a state dict, a Tensor, or dicts/lists of them and of numbers)
    to ``path`` atomically, or into a binary file object; Tensors are stored as numpy
    arrays."""
    if not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"protocol must be 2 to {pickle.HIGHEST_PROTOCOL}, got {protocol}")
    saved = _to_saved(obj)
    if _is_file(path):
        pickle.dump(saved, path, protocol=protocol)
        return
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:  # pickled straight into the file: no copy of it in memory
            pickle.dump(saved, f, protocol=protocol)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    os.replace(tmp, path)


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        found = _ALLOWED.get((module, name))
        if found is None:
            raise _C.Error(f"skiff.load: the file refers to {module}.{name}; only numpy arrays, "
                           "numbers, strings and containers can be loaded")
        return found


def _to_loaded(obj, return_numpy):
    if isinstance(obj, np.ndarray):
        if return_numpy:
            return obj
        return _C.tensor_from_array(np.ascontiguousarray(obj), True, "skiff.load")
    if isinstance(obj, dict):
        out = type(obj)()
        for k, v in obj.items():
            out[k] = _to_loaded(v, return_numpy)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_loaded(v, return_numpy) for v in obj)
    return obj


def load(path, return_numpy=False, **configs):
    """Reads a file written by skiff.save (or PaddlePaddle's paddle.save): arrays come
    back as Tensors (numpy arrays with ``return_numpy``). ``path`` may be a binary file
    object, read from its position."""
    if _is_file(path):
        data = path.read()
    elif not os.path.isfile(path):
        raise _C.Error(f"skiff.load: no file '{path}'")
    else:
        with open(path, "rb") as f:
            data = f.read()
    try:
        obj = _SafeUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError) as e:
        raise _C.Error(f"skiff.load: '{path}' is not a file written by skiff.save ({e})") \
            from None
    return _to_loaded(obj, return_numpy)
