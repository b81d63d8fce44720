"""Element types. ``skiff.float32`` and friends compare equal to their names, to numpy
dtypes and to each other, so ``x.dtype == 'float32'`` and ``x.dtype == skiff.float32``
both hold, as in Paddle."""
import numpy as np


class DType:
    """A tensor element type, named like numpy's."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.name == other.name
        try:
            return self.name == dtype_name(other)
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "skiff." + self.name

    __str__ = __repr__


float32 = DType("float32")
float64 = DType("float64")
int32 = DType("int32")
int64 = DType("int64")
bool_ = DType("bool")
bfloat16 = DType("bfloat16")
float16 = float32  # not a compute dtype in skiff: float16 data is read as float32

_BY_NAME = {d.name: d for d in (float32, float64, int32, int64, bool_, bfloat16)}
_ALIASES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64",
            "fp32": "float32", "fp64": "float64", "bf16": "bfloat16", "float16": "float32"}


def dtype_name(dtype):
    """The skiff dtype name of a DType, a name, a numpy dtype or a Python type."""
    if isinstance(dtype, DType):
        return dtype.name
    if dtype is float:
        return "float32"
    if dtype is int:
        return "int64"
    if dtype is bool:
        return "bool"
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
        if name in _BY_NAME:
            return name
        raise ValueError(f"unknown dtype {dtype!r} (skiff has {', '.join(_BY_NAME)})")
    return _numpy_to_skiff(np.dtype(dtype))


def to_dtype(dtype):
    """The DType object for anything dtype_name accepts."""
    return _BY_NAME[dtype_name(dtype)]


def _numpy_to_skiff(dt):
    if dt == np.float32 or dt == np.float16:
        return "float32"
    if dt == np.float64:
        return "float64"
    if dt == np.int32:
        return "int32"
    if dt.kind in "iu":
        return "int64"
    if dt == np.bool_:
        return "bool"
    raise ValueError(f"numpy dtype {dt} has no skiff dtype")


def numpy_dtype(dtype):
    """The numpy dtype holding values of a skiff dtype (bfloat16: none)."""
    name = dtype_name(dtype)
    if name == "bfloat16":
        raise ValueError("bfloat16 has no numpy dtype; cast to float32 first")
    return np.dtype(name)
