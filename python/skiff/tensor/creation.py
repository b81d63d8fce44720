"""Making tensors: from Python data and numpy (sharing memory where it can), filled
and random tensors."""
import math as _math
import numbers

import numpy as np

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt
from ..framework.core import apply
from ..framework.tensor_params import OPERAND, TENSOR, accepts
from ..framework.mode import mode

__all__ = ["to_tensor", "from_dlpack", "to_dlpack", "zeros", "ones", "full", "zeros_like",
           "ones_like", "full_like", "empty", "empty_like", "arange", "linspace", "eye", "tril",
           "triu", "meshgrid", "assign", "clone", "logspace", "tril_indices", "triu_indices",
           "as_tensor", "from_numpy", "range", "pi", "e", "inf", "nan"]

pi = _math.pi
e = _math.e
inf = float("inf")
nan = float("nan")

def _as_array(data, dtype):
    if dtype is not None:
        want = dt.numpy_dtype(dtype)
        arr = np.asarray(data)
        return arr if arr.dtype == want else arr.astype(want)
    arr = np.asarray(data)
    if arr.dtype.kind == "f" and not isinstance(data, np.ndarray) and arr.dtype != np.float32:
        return arr.astype(dt.get_default_dtype())  # Python floats: the default float dtype
    name = dt.dtype_name(arr.dtype)
    return arr if arr.dtype == np.dtype(name) else arr.astype(name)


def _tensor_of_array(data, dtype, share):
    """A Tensor of ``data`` converted to an array; with ``share``, over the caller's memory
    where it can be (a C-contiguous array of a skiff dtype), else over memory of its own."""
    arr = _as_array(data, dtype)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    # An array np.asarray / astype made here is ours already; one that is (or views) the
    # caller's memory is copied unless sharing was asked for.
    callers = arr is data or arr.base is not None
    return _C.tensor_from_array(arr, callers and not share)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """A Tensor holding a copy of ``data`` (a numpy array, nested lists, a number or a
    Tensor), as Paddle's: changing the array later does not change the Tensor
    (skiff.from_numpy, skiff.as_tensor and skiff.from_dlpack share memory instead).
    Python floats become float32, ints int64; narrow and unsigned integers become int64,
    float16 float32."""
    if isinstance(data, Tensor):
        out = Tensor()
        out._set_value(data if dtype is None else data.astype(dtype))
    elif mode.static and _is_variable(data):  # (Paddle: an assign of the variable)
        out = apply("assign", data)
        if dtype is not None and dt.dtype_name(dtype) != out._dtype_name:
            out = apply("cast", out, attrs={"out_dtype": dt.dtype_name(dtype)})
    else:
        out = _tensor_of_array(data, dtype, share=False)
    out.stop_gradient = stop_gradient
    return out


def _is_variable(x):
    from ..static.variable import Variable
    return isinstance(x, Variable)


def from_dlpack(obj):
    """A Tensor sharing the memory of a DLPack producer (a torch tensor, a numpy array)."""
    return _C.tensor_from_array(obj, False, "from_dlpack")


def to_dlpack(x):
    """A DLPack capsule over ``x``'s memory."""
    return x.__dlpack__()


def _shape_list(shape):
    if isinstance(shape, Tensor):
        return [int(v) for v in shape.numpy().reshape(-1)]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(s.item()) if isinstance(s, Tensor) else int(s) for s in shape]


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of ``shape`` filled with ``fill_value``."""
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else (
            "int64" if isinstance(fill_value, (int, np.integer)) else dt.get_default_dtype())
    if mode.static and isinstance(shape, (list, tuple)):
        from ..jit.static_control import full_with_run_dims, is_static_var
        if any(is_static_var(s) for s in shape):  # x.shape[0] of an unknown dim
            return full_with_run_dims(shape, fill_value, dt.dtype_name(dtype))
    return apply("fill_constant", attrs={"shape": _shape_list(shape),
                                         "value": float(fill_value),
                                         "dtype": dt.dtype_name(dtype)})


def zeros(shape, dtype=None, name=None):
    return full(shape, 0.0, dtype or dt.get_default_dtype())


def ones(shape, dtype=None, name=None):
    return full(shape, 1.0, dtype or dt.get_default_dtype())


def empty(shape, dtype=None, name=None):
    return zeros(shape, dtype)


def full_like(x, fill_value, dtype=None, name=None):
    """A tensor shaped like ``x`` filled with ``fill_value`` (``x``'s dtype by default)."""
    return apply("fill_any_like", x, attrs={"value": float(fill_value),
                                            "dtype": dt.dtype_name(dtype) if dtype else ""})


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1.0, dtype)


def empty_like(x, dtype=None, name=None):
    return full_like(x, 0.0, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from ``start`` up to ``end`` (exclusive) by ``step``."""
    if end is None:
        start, end = 0, start
    bounds = (start, end, step)
    if mode.static:
        return _arange_in_program(bounds, dtype)
    vals = [v.item() if isinstance(v, Tensor) else v for v in bounds]
    if dtype is None:
        integral = all(isinstance(v, (int, np.integer)) for v in vals)
        dtype = "int64" if integral else dt.get_default_dtype()
    return apply("arange", None, None, None,
                 attrs={"start": float(vals[0]), "end": float(vals[1]), "step": float(vals[2]),
                        "dtype": dt.dtype_name(dtype)})


def _arange_in_program(bounds, dtype):
    """arange while a program is built: bounds that are variables become the op's inputs
    (their values come when it runs); numbers stay attributes."""
    inputs = [None if isinstance(b, numbers.Number) else b for b in bounds]
    if dtype is None:
        integral = all(isinstance(b, numbers.Integral) if i is None
                       else dt.dtype_name(b.dtype) in ("int32", "int64")
                       for b, i in zip(bounds, inputs))
        dtype = "int64" if integral else dt.get_default_dtype()
    attrs = {key: float(b) if i is None else 0.0
             for key, b, i in zip(("start", "end", "step"), bounds, inputs)}
    if inputs[2] is not None:
        attrs["step"] = 1.0  # the input overrides it; the attr only has to be valid
    return apply("arange", *inputs, attrs=dict(attrs, dtype=dt.dtype_name(dtype)))


def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included)."""
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, stop, num)]
    start, stop, num = float(vals[0]), float(vals[1]), int(vals[2])
    name = dt.dtype_name(dtype or dt.get_default_dtype())
    if num == 1:
        return full([1], start, name)
    step = (stop - start) / (num - 1)
    steps = arange(0, num, 1, "float64")
    out = apply("scale", steps, attrs={"scale": step, "bias": start})
    return out if name == "float64" else apply("cast", out, attrs={"out_dtype": name})


def _positions(n, shape):
    return apply("reshape", arange(0, n, 1, "int64"), attrs={"shape": shape})


def eye(num_rows, num_columns=None, dtype=None, name=None):
    """A [num_rows, num_columns] matrix with ones on the diagonal, zeros elsewhere."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    on_diagonal = apply("equal", _positions(rows, [-1, 1]), _positions(cols, [1, -1]))
    name = dt.dtype_name(dtype or dt.get_default_dtype())
    return apply("cast", on_diagonal, attrs={"out_dtype": name})


def tril(x, diagonal=0, name=None):
    """x with the entries above the ``diagonal``-th diagonal of its last two dims set to
    0 (diagonal > 0: above the main one)."""
    return apply("tril_triu", x, attrs={"diagonal": int(diagonal), "lower": True})


def triu(x, diagonal=0, name=None):
    """x with the entries below the ``diagonal``-th diagonal of its last two dims set to 0."""
    return apply("tril_triu", x, attrs={"diagonal": int(diagonal), "lower": False})


def meshgrid(*args, **kwargs):
    """For 1-D tensors of sizes n1..nk, k tensors of shape [n1, ..., nk], the i-th holding
    args[i] along dim i ('ij' indexing)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    sizes = [int(a.shape[0]) for a in args]
    out = []
    for i, a in enumerate(args):
        view = [1] * len(args)
        view[i] = sizes[i]
        out.append(apply("expand", apply("reshape", a, attrs={"shape": view}),
                         attrs={"shape": sizes}))
    return out


@accepts(x=OPERAND, output=TENSOR)
def assign(x, output=None):
    """A copy of ``x`` (a Tensor or array-like); written into ``output`` when given."""
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    y = apply("assign", x)
    if output is not None:
        output._set_value(y)
        return output
    return y


def clone(x, name=None):
    return apply("assign", x)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values base**e for e evenly spaced from ``start`` to ``stop``."""
    base = base.item() if isinstance(base, Tensor) else float(base)
    name = dt.dtype_name(dtype or dt.get_default_dtype())
    exps = linspace(start, stop, num, "float64")
    out = apply("elementwise_pow", full([], base, "float64"), exps)
    if name in ("int32", "int64"):
        out = apply("round", out)
    return out if name == "float64" else apply("cast", out, attrs={"out_dtype": name})


def _triangle_indices(fn, row, col, offset, dtype, lower):
    row, col = int(row), int(row if col is None else col)
    if row < 0 or col < 0:
        raise ValueError(f"{fn}: row and col must be >= 0, got {row} and {col}")
    # column - row <= offset below (and on) the diagonal, >= offset above
    gap = apply("elementwise_sub", _positions(col, [1, -1]), _positions(row, [-1, 1]))
    keep = apply("less_equal" if lower else "greater_equal", gap,
                 full([], int(offset), "int64"))
    idx = apply("transpose", apply("where_index", keep), attrs={"axis": [1, 0]})
    name = dt.dtype_name(dtype)
    return idx if name == "int64" else apply("cast", idx, attrs={"out_dtype": name})


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, n] (row, column) indices of the lower triangle of a row x col matrix, on
    and below the ``offset``-th diagonal, in row-major order."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The [2, n] indices of the upper triangle (on and above the ``offset``-th
    diagonal) of a row x col matrix (col defaults to row)."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """torch.as_tensor: a Tensor sharing the memory of a numpy array of a skiff dtype (as
    from_numpy), a copy of other data (as to_tensor); requires_grad: not stop_gradient."""
    if isinstance(data, Tensor) or (mode.static and _is_variable(data)):
        return to_tensor(data, dtype, stop_gradient=not requires_grad)
    out = _tensor_of_array(data, dtype, share=True)
    out.stop_gradient = not requires_grad
    return out


def from_numpy(ndarray):
    """A Tensor over a numpy array, sharing its memory when it is C-contiguous and of a
    skiff dtype."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    return _tensor_of_array(ndarray, None, share=True)


def range(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
          requires_grad=False, name=None):
    """Values start, start + step, ... up to and including ``end`` (Paddle's deprecated
    range: floor((end - start) / step) + 1 values, the default float dtype unless given)."""
    if end is None:
        start, end = 0, start
    if mode.static and any(isinstance(v, Tensor) or hasattr(v, "block")
                           for v in (start, end, step)):
        raise _C.Error("range: in a program start, end and step must be Python numbers "
                       "(use arange for bounds known only when the program runs)")
    start, end, step = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise ValueError("range: step must not be 0")
    count = max(int(_math.floor((end - start) / step)) + 1, 0)
    name_ = dt.dtype_name(dtype or dt.get_default_dtype())
    wide = apply("scale", arange(0, count, 1, "float64"),
                 attrs={"scale": float(step), "bias": float(start)})
    result = wide if name_ == "float64" else apply("cast", wide, attrs={"out_dtype": name_})
    if out is not None:
        return apply("assign", result, out=[out])
    result.stop_gradient = not requires_grad
    return result
