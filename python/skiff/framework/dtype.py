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
int8 = DType("int8")      # quantized values (skiff.quantization)
uint8 = DType("uint8")    # quantized values, image bytes
int16 = DType("int16")
complex64 = DType("complex64")    # two float32: real, imaginary
complex128 = DType("complex128")  # two float64
float16 = float32  # not a compute dtype in skiff: float16 data is read as float32

_BY_NAME = {d.name: d for d in (float32, float64, int32, int64, bool_, bfloat16, int8, uint8,
                                int16, complex64, complex128)}
_ALIASES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64",
            "fp32": "float32", "fp64": "float64", "bf16": "bfloat16", "float16": "float32",
            "half": "float32", "fp16": "float32",
            "uint16": "bfloat16"}  # Paddle's name for the 16 bits of bfloat16


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
    if dtype is complex:
        return "complex64"
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
        if name in _BY_NAME:
            return name
        raise ValueError(f"unknown dtype {dtype!r} (skiff has {', '.join(_BY_NAME)})")
    try:
        as_numpy = np.dtype(dtype)
    except (TypeError, ValueError):  # numpy's own words ("data type 'ab' not understood")
        raise TypeError(f"{_shown(dtype)} is not a dtype (a name such as 'float32', a skiff "
                        f"or numpy dtype)") from None
    return _numpy_to_skiff(as_numpy)


def _shown(value):
    """value as messages show it: its repr when short, else its type."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {list(value.shape)}"
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"


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
    if dt in (np.int8, np.uint8, np.int16):
        return dt.name
    if dt.kind in "iu":
        return "int64"
    if dt == np.bool_:
        return "bool"
    if dt in (np.complex64, np.complex128):
        return dt.name
    raise ValueError(f"numpy dtype {dt} has no skiff dtype")


def numpy_dtype(dtype):
    """The numpy dtype holding values of a skiff dtype (bfloat16: none)."""
    name = dtype_name(dtype)
    if name == "bfloat16":
        raise ValueError("bfloat16 has no numpy dtype; cast to float32 first")
    return np.dtype(name)


def is_complex_name(name):
    """True for the names of the complex dtypes."""
    return name in ("complex64", "complex128")


def complex_name(name):
    """The complex dtype whose parts have the real dtype ``name`` (complex64 for float32 and
    the other non-float64 dtypes, complex128 for float64); a complex name maps to itself."""
    if name in ("complex64", "complex128"):
        return name
    return "complex128" if name == "float64" else "complex64"


def real_name(name):
    """The dtype of a complex dtype's parts (float32 for complex64); others map to
    themselves."""
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


# Aliases Paddle has at top level: paddle.float is float32, paddle.int is int32.
float_ = float32
double = float64
half = float16
long = int64
int_ = int32

_default_float = ["float32"]


def set_default_dtype(d):
    """Makes ``d`` (float32 or float64) the dtype of tensors made from Python floats and
    of float tensors created without a dtype."""
    name = dtype_name(d)
    if name not in ("float32", "float64"):
        raise TypeError(f"set_default_dtype: only float32 and float64 can be the default "
                        f"float dtype, got {d!r}")
    _default_float[0] = name


def get_default_dtype():
    """The name of the default float dtype ('float32' unless set_default_dtype changed it)."""
    return _default_float[0]
