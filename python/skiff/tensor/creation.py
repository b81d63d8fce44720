"""Making tensors: from Python data and numpy (sharing memory where it can), filled
and random tensors."""
import math as _math
import numbers

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from ..framework import arguments, dtype as dt
from ..framework.tensor_params import OPERAND, TENSOR, accepts
from ..framework.mode import mode
from ..framework.variable import Variable
from .run_dims import full_with_run_dims, is_static_var

__all__ = ["to_tensor", "asarray", "from_dlpack", "to_dlpack", "zeros", "ones", "full",
           "zeros_like", "ones_like", "full_like", "empty", "empty_like", "arange", "linspace", "eye", "tril",
           "triu", "meshgrid", "assign", "clone", "logspace", "tril_indices", "triu_indices",
           "as_tensor", "from_numpy", "range", "pi", "e", "inf", "nan"]

pi = _math.pi
e = _math.e
inf = float("inf")
nan = float("nan")

def _as_array(data, dtype, fn="to_tensor", param="data"):
    """``data`` as a numpy array of a skiff dtype (``dtype``, or the one its values ask
    for); data that holds no numbers, ragged lists and integers past 64 bits are refused
    naming the public function ``fn`` and its parameter."""
    if dtype is not None:
        want = dt.numpy_dtype(arguments.dtype(fn, dtype))
        arr = _numbers_array(data, fn, param)
        return arr if arr.dtype == want else arr.astype(want)
    arr = _numbers_array(data, fn, param)
    if not _keeps_dtype(data):
        if arr.dtype.kind == "f" and arr.dtype != np.float32:
            return arr.astype(dt.get_default_dtype())  # Python floats: the default float dtype
        if arr.dtype.kind == "c":  # Python complex numbers: parts of the default float dtype
            return arr.astype(dt.complex_name(dt.get_default_dtype()))
        if arr.dtype == np.int32:
            return arr.astype(np.int64)  # (numpy's int on some platforms)
    name = dt.dtype_name(arr.dtype)
    return arr if arr.dtype == np.dtype(name) else arr.astype(name)


def _keeps_dtype(data):
    """Whether data's values keep the dtype numpy gives them, as Paddle's: an array, a
    numpy scalar, or a list or tuple holding a Tensor among its items (the Tensors' dtypes
    and numpy's promotion decide). Other data takes the default float dtype for floats."""
    if isinstance(data, (np.ndarray, np.generic)):
        return not isinstance(data, np.bool_)
    return isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in data)


def _numbers_array(data, fn, param):
    """np.asarray(data) when it holds bools, integers or real floats; ArgumentError or
    ArgumentTypeError naming fn and param otherwise."""
    try:
        arr = np.asarray(data)
    except ValueError:  # numpy: "setting an array element with a sequence"
        raise arguments.ArgumentError(f"{fn}: {param} is a ragged nested sequence (its rows "
                                      f"differ in length, or mix numbers and lists)") from None
    if arr.dtype.kind in "biufc":
        return arr
    got = _data_kind(data, arr)
    if arr.dtype.kind == "O" and arr.ndim > 0:
        for v in arr.flat:
            if isinstance(v, numbers.Integral) and not -2**63 <= v < 2**64:
                raise arguments.ArgumentError(f"{fn}: {param} holds the integer {v}, past the "
                                              f"64 bits a skiff dtype holds")
            if not isinstance(v, numbers.Real):
                got = f"a {type(data).__name__} holding a {type(v).__name__}"
                break
    raise arguments.ArgumentTypeError(f"{fn}: {param} must be a number, a nested list of "
                                      f"numbers, an array or a Tensor, got {got}")


def _data_kind(data, arr):
    """How a message names data that holds no numbers skiff stores."""
    if isinstance(data, np.ndarray):
        return f"an array of {arr.dtype}"
    if isinstance(data, (list, tuple)):
        held = {"U": "strings", "S": "bytes", "c": "complex numbers"}.get(arr.dtype.kind,
                                                                          "objects")
        return f"a {type(data).__name__} holding {held}"
    return type(data).__name__


def data_tensor(fn, param, data, dtype=None):
    """A Tensor holding a copy of ``data`` (numbers, nested lists, an array) that the public
    function ``fn`` takes as its parameter ``param``; errors name both."""
    arr = _as_array(data, dtype, fn, param)
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        arr = np.array(arr, order="C")  # read-only memory (np.frombuffer, Arrow) is copied
    return _C.tensor_from_array(arr, arr is data or arr.base is not None)


def _tensor_of_array(data, dtype, share):
    """A Tensor of ``data`` converted to an array; with ``share``, over the caller's memory
    where it can be (a C-contiguous array of a skiff dtype), else over memory of its own."""
    arr = _as_array(data, dtype)
    if not arr.flags.c_contiguous or not arr.flags.writeable:
        arr = np.array(arr, order="C")  # read-only memory (np.frombuffer, Arrow) is copied
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
    elif mode.static and isinstance(data, Variable):  # (Paddle: an assign of the variable)
        out = _C_ops.assign(data)
        if dtype is not None and dt.dtype_name(dtype) != out._dtype_name:
            out = _C_ops.cast(out, out_dtype=dt.dtype_name(dtype))
    elif dtype is not None and arguments.dtype("to_tensor", dtype) == "bfloat16":  # no numpy one
        out = _C_ops.cast(_tensor_of_array(data, "float32", share=False), out_dtype="bfloat16")
    else:
        out = _tensor_of_array(data, dtype, share=False)
    out.stop_gradient = stop_gradient
    return out


def tensor_of(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """skiff.tensor(data, ...) (Paddle 3.x's torch-style constructor): to_tensor with
    requires_grad in place of stop_gradient; device and pin_memory are taken, and skiff
    keeps the values on the CPU."""
    return to_tensor(data, dtype, device, stop_gradient=not requires_grad)


def from_dlpack(obj):
    """A Tensor sharing the memory of a DLPack producer (a torch tensor, a numpy array)."""
    return _C.tensor_from_array(obj, False, "from_dlpack")


def to_dlpack(x):
    """A DLPack capsule over ``x``'s memory."""
    return x.__dlpack__()


def _shape_list(shape, fn="full"):
    """The dims of the shape argument of the public function ``fn`` (see arguments.shape)."""
    return arguments.shape(fn, shape)


def _fill_value(fn, value):
    """A fill value as a float: a number, a Tensor of one element or, as Paddle takes, a
    string holding a number."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise arguments.ArgumentError(f"{fn}: fill_value must be a number, got the "
                                          f"string {value!r}") from None
    return arguments.number(fn, "fill_value", value)


def _float_dtype(fn, dtype):
    """The dtype argument of ``fn`` as a name: the default float dtype when None."""
    return arguments.dtype(fn, dt.get_default_dtype() if dtype is None else dtype)


def _filled(fn, shape, fill_value, dtype):
    """The tensor the creation function ``fn`` makes: ``shape`` filled with ``fill_value``
    (when ``dtype`` is None, as Paddle's: bool for a Python bool, else the default float
    dtype, for int fill values too)."""
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else dt.get_default_dtype()
    dtype = arguments.dtype(fn, dtype)
    if mode.static and isinstance(shape, (list, tuple)):
        if any(is_static_var(s) for s in shape):  # x.shape[0] of an unknown dim
            return full_with_run_dims(shape, _fill_value(fn, fill_value), dtype)
    return _C_ops.fill_constant(shape=arguments.shape(fn, shape), value=_fill_value(fn, fill_value),
                                dtype=dtype)


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of ``shape`` filled with ``fill_value``."""
    return _filled("full", shape, fill_value, dtype)


def zeros(shape, dtype=None, name=None):
    return _filled("zeros", shape, 0.0, _float_dtype("zeros", dtype))


def ones(shape, dtype=None, name=None):
    return _filled("ones", shape, 1.0, _float_dtype("ones", dtype))


def empty(shape, dtype=None, name=None):
    return _filled("empty", shape, 0.0, _float_dtype("empty", dtype))


def _filled_like(fn, x, fill_value, dtype):
    """A tensor shaped like ``x`` filled with ``fill_value`` (``x``'s dtype by default)."""
    return _C_ops.fill_any_like(x, value=_fill_value(fn, fill_value),
                                dtype=arguments.dtype(fn, dtype) if dtype is not None else "")


def full_like(x, fill_value, dtype=None, name=None):
    """A tensor shaped like ``x`` filled with ``fill_value`` (``x``'s dtype by default)."""
    return _filled_like("full_like", x, fill_value, dtype)


def zeros_like(x, dtype=None, name=None):
    return _filled_like("zeros_like", x, 0.0, dtype)


def ones_like(x, dtype=None, name=None):
    return _filled_like("ones_like", x, 1.0, dtype)


def empty_like(x, dtype=None, name=None):
    return _filled_like("empty_like", x, 0.0, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from ``start`` up to ``end`` (exclusive) by ``step``."""
    if end is None:
        start, end = 0, start
    bounds = (start, end, step)
    if mode.static:
        return _arange_in_program(bounds, dtype)
    vals = [_bound("arange", p, v) for p, v in zip(("start", "end", "step"), bounds)]
    if dtype is None:
        integral = all(isinstance(v, int) for v in vals)
        dtype = "int64" if integral else dt.get_default_dtype()
    _check_length("arange", *vals)
    return _C_ops.arange(None, None, None, start=float(vals[0]), end=float(vals[1]),
                         step=float(vals[2]), dtype=arguments.dtype("arange", dtype))


def _bound(fn, param, value):
    """A bound of a range (a real number or a Tensor of one element) as a Python int or
    float (integers, numpy's and bools included, stay ints)."""
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, Tensor):
        arguments.number(fn, param, value)  # one element
        return value.item()
    return arguments.number(fn, param, value)


def _check_length(fn, start, end, step):
    """Refuses a range of more values than a tensor holds (checked before the op sizes
    it; a zero or non-finite step is the op's to refuse)."""
    if step != 0 and _math.isfinite(start) and _math.isfinite(end) and _math.isfinite(step):
        n = (end - start) / step
        if n > 2**62:
            raise arguments.ArgumentError(
                f"{fn}: start {start}, end {end} and step {step} give {n:.3g} values, more "
                f"than a tensor holds")


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
    return _C_ops.arange(*inputs, **dict(attrs, dtype=dt.dtype_name(dtype)))


def linspace(start, stop, num, dtype=None, name=None, *, device=None, requires_grad=False):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included); ``device``
    is taken as Paddle's (skiff computes on the CPU) and ``requires_grad`` clears
    stop_gradient."""
    out = _linspace(start, stop, num, dtype)
    out.stop_gradient = not requires_grad
    return out


def _linspace(start, stop, num, dtype):
    """linspace's values."""
    start, stop = (float(_bound("linspace", p, v)) for p, v in (("start", start), ("stop", stop)))
    num = _whole("linspace", "num", num)
    name = _float_dtype("linspace", dtype)
    if num == 1:
        return full([1], start, name)
    step = (stop - start) / (num - 1)
    steps = arange(0, num, 1, "float64")
    out = _C_ops.scale(steps, scale=step, bias=start)
    return out if name == "float64" else _C_ops.cast(out, out_dtype=name)


def _whole(fn, param, value, low=0):
    """A count such as linspace's num (an integer >= low, or a float holding one, as Paddle
    takes) as an int."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return arguments.count(fn, param, value, low)


def _positions(n, shape):
    return _C_ops.reshape(arange(0, n, 1, "int64"), shape=shape)


def eye(num_rows, num_columns=None, dtype=None, name=None):
    """A [num_rows, num_columns] matrix with ones on the diagonal, zeros elsewhere."""
    rows = arguments.count("eye", "num_rows", num_rows)
    cols = rows if num_columns is None else arguments.count("eye", "num_columns", num_columns)
    name = _float_dtype("eye", dtype)
    on_diagonal = _C_ops.equal(_positions(rows, [-1, 1]), _positions(cols, [1, -1]))
    return _C_ops.cast(on_diagonal, out_dtype=name)


def tril(x, diagonal=0, name=None):
    """x with the entries above the ``diagonal``-th diagonal of its last two dims set to
    0 (diagonal > 0: above the main one)."""
    return _C_ops.tril_triu(x, diagonal=arguments.integer("tril", "diagonal",
                                                                      diagonal), lower=True)


def triu(x, diagonal=0, name=None):
    """x with the entries below the ``diagonal``-th diagonal of its last two dims set to 0."""
    return _C_ops.tril_triu(x, diagonal=arguments.integer("triu", "diagonal",
                                                                      diagonal), lower=False)


def meshgrid(*args, **kwargs):
    """For 1-D tensors of sizes n1..nk, k tensors of shape [n1, ..., nk], the i-th holding
    args[i] along dim i ('ij' indexing)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise arguments.ArgumentError("meshgrid: needs at least one Tensor")
    for i, a in enumerate(args):
        arguments.tensor("meshgrid", f"args[{i}]", a)
        if len(a.shape) > 1:
            raise arguments.ArgumentError(f"meshgrid: args[{i}] must be 0-D or 1-D, got "
                                          f"shape {list(a.shape)}")
    sizes = [int(a.shape[0]) if a.shape else 1 for a in args]
    out = []
    for i, a in enumerate(args):
        view = [1] * len(args)
        view[i] = sizes[i]
        out.append(_C_ops.expand(_C_ops.reshape(a, shape=view), shape=sizes))
    return out


@accepts(x=OPERAND, output=TENSOR)
def assign(x, output=None):
    """A copy of ``x`` (a Tensor or array-like); written into ``output`` when given. As
    Paddle's, a number becomes a one-element 1-D tensor and a list keeps the dtype numpy
    gives it (Python floats: float64)."""
    if not isinstance(x, Tensor):
        x = data_tensor("assign", "x", _assigned_array(x))
    y = _C_ops.assign(x)
    if output is not None:
        output._set_value(y)
        return output
    return y


def _assigned_array(x):
    """assign's data as numpy reads it: a number as [x], a list or tuple as np.array of it;
    other data (and ragged lists, which data_tensor names) unchanged."""
    if isinstance(x, numbers.Number) or isinstance(x, np.generic):
        return np.array([x])
    if isinstance(x, (list, tuple)) and not any(isinstance(v, Tensor) for v in x):
        try:
            return np.array(x)
        except ValueError:
            return x
    return x


def clone(x, name=None):
    return _C_ops.assign(x)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values base**e for e evenly spaced from ``start`` to ``stop``."""
    base = arguments.number("logspace", "base", base)
    name = _float_dtype("logspace", dtype)
    start, stop = (_bound("logspace", p, v) for p, v in (("start", start), ("stop", stop)))
    exps = linspace(start, stop, _whole("logspace", "num", num), "float64")
    out = _C_ops.elementwise_pow(full([], base, "float64"), exps)
    if name in ("int32", "int64"):
        out = _C_ops.round(out)
    return out if name == "float64" else _C_ops.cast(out, out_dtype=name)


def _triangle_indices(fn, row, col, offset, dtype, lower):
    row = arguments.count(fn, "row", row)
    col = row if col is None else arguments.count(fn, "col", col)
    offset = arguments.integer(fn, "offset", offset)
    name = arguments.dtype(fn, dtype)
    # column - row <= offset below (and on) the diagonal, >= offset above
    gap = _C_ops.elementwise_sub(_positions(col, [1, -1]), _positions(row, [-1, 1]))
    keep = (_C_ops.less_equal if lower else _C_ops.greater_equal)(gap, full([], offset, "int64"))
    idx = _C_ops.transpose(_C_ops.where_index(keep), axis=[1, 0])
    return idx if name == "int64" else _C_ops.cast(idx, out_dtype=name)


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
    if isinstance(data, Tensor) or (mode.static and isinstance(data, Variable)):
        return to_tensor(data, dtype, stop_gradient=not requires_grad)
    out = _tensor_of_array(data, dtype, share=True)
    out.stop_gradient = not requires_grad
    return out


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A new Tensor holding ``obj`` (a number, nested lists, a numpy array or a Tensor),
    as skiff.tensor: numpy arrays keep their dtype, Python floats take the default dtype;
    always a copy (``copy`` is taken and has no effect, as in Paddle); requires_grad: not
    stop_gradient."""
    return tensor_of(obj, dtype, device, requires_grad)


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
    start, end, step = [_bound("range", p, v) for p, v in (("start", start), ("end", end),
                                                          ("step", step))]
    if step == 0:
        raise arguments.ArgumentError("range: step must not be 0")
    if not all(_math.isfinite(v) for v in (start, end, step)):
        raise arguments.ArgumentError(f"range: start, end and step must be finite, got "
                                      f"{start}, {end} and {step}")
    _check_length("range", start, end, step)
    count = max(int(_math.floor((end - start) / step)) + 1, 0)
    name_ = _float_dtype("range", dtype)
    wide = _C_ops.scale(arange(0, count, 1, "float64"), scale=float(step), bias=float(start))
    result = wide if name_ == "float64" else _C_ops.cast(wide, out_dtype=name_)
    if out is not None:
        return _C_ops.assign(result, out=[out])
    result.stop_gradient = not requires_grad
    return result
