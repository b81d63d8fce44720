"""Python numbers inside tensor expressions: the dtype a mixed tensor/scalar operation
computes in (Paddle's rules) and the 0-d constant tensors standing for the numbers."""
from .. import _C_ops
import atexit
import numbers

import numpy as np

from ..framework.arguments import ArgumentTypeError, dtype_name_of, is_tensor, kind_of
from ..framework.mode import mode
from .creation import data_tensor

_FLOATS = ("float32", "float64", "bfloat16")
_constants = {}
atexit.register(_constants.clear)  # no tensors left for the binding's exit-time check


def is_float(x):
    return dtype_name_of(x) in _FLOATS


def constant(value, dtype):
    """A 0-d tensor holding ``value`` as ``dtype`` (eager: cached; never written to)."""
    if mode.static:
        return _C_ops.fill_constant(shape=[], value=float(value), dtype=dtype)
    key = (value.__class__, value, dtype)
    t = _constants.get(key)
    if t is None:
        if len(_constants) > 4096:
            _constants.clear()
        t = _constants[key] = _C_ops.fill_constant(shape=[], value=float(value), dtype=dtype)
    return t


def constant_like(x, value):
    """A tensor of x's shape and dtype holding ``value`` through which no gradient flows
    (in a program, built from x detached: backward must not meet fill_any_like)."""
    if mode.static and not x.stop_gradient:
        x = x.detach()
    out = _C_ops.fill_any_like(x, value=float(value), dtype="")
    out.stop_gradient = True
    return out


def promote_for_scalar(x, value):
    """``x`` cast where a Python number needs a wider type: a float with an integer or
    bool tensor gives float32, an int with a bool tensor gives int64 (as Paddle)."""
    name = dtype_name_of(x)
    if name in _FLOATS:
        return x
    if isinstance(value, bool) and name == "bool":
        return x
    if isinstance(value, numbers.Integral):
        return x if name != "bool" else _C_ops.cast(x, out_dtype="int64")
    return _C_ops.cast(x, out_dtype="float32")


def _coerce(v, like, fn, param):
    """v as a Python number or a tensor: numpy scalars and 0-d arrays become numbers,
    arrays and lists tensors of ``like``'s dtype; anything else is an ArgumentTypeError
    naming the function ``fn`` and its parameter ``param``."""
    if is_tensor(v) or isinstance(v, numbers.Real):
        return v
    if (isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0)) and \
            v.dtype.kind in "biuf":
        return v.item()
    if isinstance(v, (np.ndarray, list, tuple)):
        return data_tensor(fn, param, v, dtype_name_of(like))
    raise ArgumentTypeError(f"{fn}: {param} must be a Tensor, a real number or an array, got "
                            f"{kind_of(v)}")


def coerce_pair(x, y, fn="operator"):
    """(x, y) with numpy values turned into numbers or tensors (see _coerce; ``fn`` names
    the public function in errors)."""
    if is_tensor(x):
        return x, _coerce(y, x, fn, "y")
    if not is_tensor(y):
        raise ArgumentTypeError(f"{fn}: x or y must be a Tensor, got {kind_of(x)} and "
                                f"{kind_of(y)}")
    return _coerce(x, y, fn, "x"), y


def _as_float_like(v, other):
    """v cast to ``other``'s floating dtype when v stands for a Python int in converted code
    (a len() or a dim known only at run time: ``_python_int``), as the int would promote."""
    if getattr(v, "_python_int", False) and is_float(other) and not is_float(v):
        return _C_ops.cast(v, out_dtype=dtype_name_of(other))
    return v


def as_operands(x, y, fn="operator"):
    """(x, y) as tensors of one dtype when one of them is a Python number (``fn`` names
    the public function in errors)."""
    x, y = coerce_pair(x, y, fn)
    if is_tensor(x):
        if is_tensor(y):
            return _as_float_like(x, y), _as_float_like(y, x)
        x = promote_for_scalar(x, y)
        return x, constant(y, dtype_name_of(x))
    y = promote_for_scalar(y, x)
    return constant(x, dtype_name_of(y)), y
