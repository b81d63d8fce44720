"""Checks of the arguments of skiff's public functions, made once at the API edge before
any loop or op uses them. Each names the public function, the parameter and the value:

    axis = arguments.axis("flip", axis, len(x.shape))        # an int in [0, rank)
    dims = arguments.axes("sum", axis, len(x.shape))         # a list of them
    n = arguments.count("diff", "n", n)                      # an int >= 0
    arguments.tensor("bmm", "y", y)                          # TypeError unless a Tensor

Wrong kinds raise ArgumentTypeError (a TypeError), axes outside the tensor AxisError (a
ValueError and an IndexError, as numpy's), other bad values ArgumentError (a ValueError);
each is also a skiff.Error, as everything skiff refuses is."""
import numbers

import numpy as np

from .._C import Error, Tensor
from .op_schema import schema
from .dtype import dtype_name
from .mode import mode

_INTEGER_DTYPES = ("int8", "uint8", "int16", "int32", "int64")
# The outputs one op call can have (the count is an int32 in C++).
MAX_OUTPUTS = 2**31 - 1
FLOAT_DTYPES = frozenset(("float32", "float64", "bfloat16", "float16"))
# Layers one stack (TransformerEncoder, an RNN's num_layers) builds; a deeper one is taken for
# a mistake: refused before any layer is made (4096 small layers take ~2 s to make).
MAX_LAYERS = 1 << 12


class ArgumentError(Error, ValueError):
    """An argument whose value the parameter does not take."""


class ArgumentTypeError(Error, TypeError):
    """An argument of a kind the parameter does not take."""


class AxisError(ArgumentError, IndexError):
    """An axis argument outside the dims of the tensor it indexes."""


def is_tensor(x):
    """True for an eager Tensor or a static Variable."""
    return isinstance(x, Tensor) or (mode.static and hasattr(x, "block"))


def dtype_name_of(x):
    """The dtype name of a Tensor or a static Variable."""
    name = getattr(x, "_dtype_name", None)
    return name if name is not None else dtype_name(x.dtype)


def kind_of(value):
    """How messages name the kind of ``value``: its type, with the dtype for a Tensor."""
    if isinstance(value, Tensor):
        return f"a {dtype_name_of(value)} Tensor"
    return type(value).__name__


def tensor(fn, param, value):
    """``value`` itself when it is a Tensor (or a static Variable); TypeError otherwise."""
    if not is_tensor(value):
        raise ArgumentTypeError(f"{fn}: {param} must be a Tensor, got {kind_of(value)}")
    return value


def is_floating(x):
    """True for a Tensor (or static Variable) of a floating-point dtype."""
    return is_tensor(x) and dtype_name_of(x) in FLOAT_DTYPES


def dtype_in(fn, param, x, dtypes):
    """``x`` itself when its dtype is one of ``dtypes``; ArgumentTypeError naming them
    otherwise (a single-op function calls it when its op fails, at no cost before)."""
    name = dtype_name_of(x)
    if name not in dtypes:
        listed = ", ".join(dtypes[:-1]) + " or " + dtypes[-1] if len(dtypes) > 1 else dtypes[0]
        raise ArgumentTypeError(f"{fn}: {param} must be a {listed} Tensor, got {name}")
    return x


def explain_op_failure(fn, x, op=None, param="x"):
    """Called where the op (``op``, or the one named ``fn``) of the single-op function
    ``fn`` failed on its input ``x``: raises an ArgumentTypeError naming fn when x is not
    a Tensor or has a dtype the op has no kernel for (a check that costs nothing until the
    op fails); returns otherwise."""
    tensor(fn, param, x)
    dtype_in(fn, param, x, schema(op or fn)["dtypes"])


def integer(fn, param, value):
    """``value`` as a Python int: an int, a numpy integer or an integer Tensor of one
    element. TypeError for anything else, bool and float included."""
    if value.__class__ is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{fn}: {param} must be an int, got bool {value!r}")
    if isinstance(value, Tensor):
        name = dtype_name_of(value)
        if name not in _INTEGER_DTYPES or _numel(value) != 1:
            raise ArgumentTypeError(f"{fn}: {param} must be an int or an integer Tensor of "
                                    f"one element, got a {name} Tensor of shape "
                                    f"{list(value.shape)}")
        return int(value.item())
    if isinstance(value, numbers.Integral):
        return int(value)
    raise ArgumentTypeError(f"{fn}: {param} must be an int, got {type(value).__name__} "
                            f"{value!r}")


def _numel(t):
    n = 1
    for d in t.shape:
        n *= d
    return n


def integers(fn, param, value):
    """``value`` as a list of Python ints: an int, a list or tuple of integers, or an
    integer Tensor (its entries)."""
    if value.__class__ is int:
        return [value]
    if value.__class__ is list or value.__class__ is tuple:
        for v in value:
            if v.__class__ is not int:
                break
        else:
            return list(value)
    if isinstance(value, Tensor):
        if dtype_name_of(value) not in _INTEGER_DTYPES or len(value.shape) > 1:
            raise ArgumentTypeError(f"{fn}: {param} must be an int or a list of ints, got "
                                    f"a {dtype_name_of(value)} Tensor of shape "
                                    f"{list(value.shape)}")
        return [int(v) for v in np.asarray(value).reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [integer(fn, f"{param}[{i}]", v) for i, v in enumerate(value)]
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return integers(fn, param, value.tolist())
    try:
        return [integer(fn, param, value)]
    except ArgumentTypeError:
        raise ArgumentTypeError(f"{fn}: {param} must be an int or a list of ints, got "
                                f"{type(value).__name__} {value!r}") from None


def _out_of_range(fn, param, value, rank, scalar):
    if rank == 0 and not scalar:
        return AxisError(f"{fn}: {param} {value} is out of range: the tensor is 0-D and has "
                         f"no axes")
    n = rank or 1
    return AxisError(f"{fn}: {param} {value} is out of range for a {rank}-D tensor (valid: "
                     f"[{-n}, {n - 1}])")


def axis(fn, value, rank, param="axis", scalar=False):
    """``value`` (an integer in [-rank, rank)) as an axis in [0, rank) of a ``rank``-D
    tensor; ``scalar``: a 0-D tensor takes axis 0 and -1, as a 1-D one does."""
    a = value if value.__class__ is int else integer(fn, param, value)
    n = (rank or 1) if scalar else rank
    if not -n <= a < n:
        raise _out_of_range(fn, param, value, rank, scalar)
    return a + n if a < 0 else a


def axes(fn, value, rank, param="axis", unique=True, scalar=False):
    """``value`` (an integer, or a list / tuple / 1-D Tensor of them) as a list of axes,
    each as ``axis`` makes it, in the given order; ``unique``: an axis given twice is an
    ArgumentError."""
    n = (rank or 1) if scalar else rank
    out = []
    for a in integers(fn, param, value):
        if not -n <= a < n:
            raise _out_of_range(fn, param, a, rank, scalar)
        out.append(a + n if a < 0 else a)
    if unique and len(set(out)) != len(out):
        raise ArgumentError(f"{fn}: {param} {_shown(value)} names an axis more than once")
    return out


def _shown(value):
    return value.tolist() if isinstance(value, Tensor) else value


def op_axis(fn, value, x, param="axis", scalar=False, extra=0):
    """``value`` for an op that checks the axis's range itself: a Python int as it is (its
    caller calls ``axis`` where the op fails, to name ``fn``), anything else (and in
    static mode everything) checked now against x's rank plus ``extra`` (stack's new
    axis). Saves looking the rank up on the fast path."""
    if value.__class__ is int and not mode.static:
        return value
    return axis(fn, value, len(tensor(fn, "x", x).shape) + extra, param, scalar)


def op_axes(fn, value, x, param="axis", unique=True, scalar=False):
    """``value`` as a list for an op that checks its axes itself (see ``op_axis``): an int
    or a list / tuple of ints as they are, anything else checked now."""
    if not mode.static:
        if value.__class__ is int:
            return [value]
        if value.__class__ is list or value.__class__ is tuple:
            for a in value:
                if a.__class__ is not int:
                    break
            else:
                return list(value)
    return axes(fn, value, len(tensor(fn, "x", x).shape), param, unique, scalar)


def count(fn, param, value, low=0, high=None, limit=""):
    """``value`` (an integer in [low, high]; high None: no upper bound) as an int. The
    message for a value above ``high`` says what bounds it (``limit``, e.g. "the size
    of axis 1")."""
    n = integer(fn, param, value)
    if high is None and n < low:
        raise ArgumentError(f"{fn}: {param} must be >= {low}, got {n}")
    if high is not None and not low <= n <= high:
        bound = f" ({high} is {limit})" if limit else ""
        raise ArgumentError(f"{fn}: {param} must be in [{low}, {high}]{bound}, got {n}")
    return n


def counts(fn, param, value, low=0):
    """``value`` (an integer or a list of integers, each >= low) as a list of ints."""
    out = integers(fn, param, value)
    for i, n in enumerate(out):
        if n < low:
            where = param if len(out) == 1 and not isinstance(value, (list, tuple)) \
                else f"{param}[{i}]"
            raise ArgumentError(f"{fn}: {where} must be >= {low}, got {n}")
    return out


def number(fn, param, value):
    """``value`` as a Python float: a real number (a bool is 0 or 1), a numpy number or a
    Tensor of one element. ArgumentTypeError for anything else (strings, None, complex)."""
    if value.__class__ is float or value.__class__ is int:
        return float(value)
    if isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, np.ndarray):
        return float(value)
    if isinstance(value, Tensor) and _numel(value) == 1 \
            and dtype_name_of(value) != "bfloat16":
        return float(value.item())
    if isinstance(value, Tensor):
        raise ArgumentTypeError(f"{fn}: {param} must be a number or a Tensor of one element, "
                                f"got a {dtype_name_of(value)} Tensor of shape "
                                f"{list(value.shape)}")
    raise ArgumentTypeError(f"{fn}: {param} must be a number, got {_described(value)}")


def _described(value):
    """How a message shows a value of the wrong kind: its type, and its repr when short."""
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype} and shape {list(value.shape)}"
    text = repr(value)
    return type(value).__name__ + (f" {text}" if len(text) <= 40 else "")


def shape(fn, value, param="shape"):
    """``value`` as a list of dims for a tensor to be made: an int, a list or tuple of ints
    (numpy integers and integer Tensors of one element among them, as Paddle takes) or a
    1-D integer Tensor or array. Bools and floats are refused (TypeError), and so are
    negative dims except while a program is built (where -1 stands for a dim known only
    when it runs)."""
    if value.__class__ is list or value.__class__ is tuple:
        for d in value:
            if d.__class__ is not int or d < 0:
                break
        else:
            return list(value)
    dims = _shape_dims(fn, value, param)
    if not mode.static:
        for i, d in enumerate(dims):
            if d < 0:
                where = f"{param}[{i}]" if isinstance(value, (list, tuple, Tensor,
                                                             np.ndarray)) else param
                raise ArgumentError(f"{fn}: {where} must be >= 0, got {d}")
    return dims


def _shape_dims(fn, value, param):
    """The dims ``value`` gives (see ``shape``), before their signs are checked."""
    if isinstance(value, (list, tuple)):
        return [integer(fn, f"{param}[{i}]", d) for i, d in enumerate(value)]
    if isinstance(value, (Tensor, np.ndarray)) and len(value.shape) <= 1:
        kind = dtype_name_of(value) if isinstance(value, Tensor) else value.dtype.name
        if kind in _INTEGER_DTYPES or kind in ("uint16", "uint32", "uint64"):
            return [int(d) for d in np.asarray(value).reshape(-1).tolist()]
    elif isinstance(value, (numbers.Integral, np.integer)) and \
            not isinstance(value, (bool, np.bool_)):
        return [int(value)]
    raise ArgumentTypeError(f"{fn}: {param} must be an int, a list or tuple of ints, or an "
                            f"integer Tensor, got {_shape_kind(value)}")


def _shape_kind(value):
    if isinstance(value, Tensor):
        return f"a {dtype_name_of(value)} Tensor of shape {list(value.shape)}"
    return _described(value)


def dtype(fn, value, param="dtype"):
    """The skiff dtype name ``value`` stands for (a name such as 'float32', a skiff or
    numpy dtype, a Python type); ArgumentTypeError naming fn for anything else, and
    ArgumentError for a dtype skiff lacks."""
    try:
        return dtype_name(value)
    except TypeError as e:
        raise ArgumentTypeError(f"{fn}: {param}: {e}") from None
    except ValueError as e:
        raise ArgumentError(f"{fn}: {param}: {e}") from None


def renamed_signature_error(error, callee, shown):
    """For Python's TypeError ``error`` raised when ``callee`` (a Python function) was
    called with arguments it does not take, before any of its lines ran: an
    ArgumentTypeError saying the same of ``shown``, the public function the user called
    (``scatter_() missing 2 required positional arguments``); None for any other error."""
    if not isinstance(error, TypeError) or error.__traceback__ is None \
            or error.__traceback__.tb_next is not None:
        return None  # raised inside callee, not by the call
    text, head = str(error), getattr(callee, "__qualname__", "") + "()"
    if not text.startswith(head):
        return None
    return ArgumentTypeError(shown + "()" + text[len(head):])


def forward_call(shown, callee, *args, **kwargs):
    """callee(*args, **kwargs) for the public function ``shown`` that passes its
    arguments on: a mistake in them is reported as the user's call of ``shown``."""
    try:
        return callee(*args, **kwargs)
    except TypeError as e:
        error = renamed_signature_error(e, callee, shown)
        if error is None:
            raise
        raise error from None


def real(fn, param, value, low=None, high=None, above=None, below=None):
    """``value`` (see ``number``) as a float within the bounds given: low <= value <= high,
    above < value < below (NaN is in no range: refused whenever a bound is given)."""
    v = number(fn, param, value)
    if low is not None and not v >= low:
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
    elif above is not None and not v > above:
        bound = f"> {above}" + (f" and < {below}" if below is not None else "")
    elif high is not None and not v <= high:
        bound = f"in [{low}, {high}]" if low is not None else f"<= {high}"
    elif below is not None and not v < below:
        bound = f"< {below}" + (f" and > {above}" if above is not None else "")
    else:
        return v
    raise ArgumentError(f"{fn}: {param} must be {bound}, got {_shown(value)}")


def flag(fn, param, value):
    """``value`` as a bool: a bool, a numpy bool, an integer or None (False). A string, a
    list or an array (whose truth Python would take without a word) is a TypeError."""
    if value is True or value is False:
        return value
    if value is None:
        return False
    if isinstance(value, (numbers.Integral, np.bool_, np.integer)):
        return bool(value)
    raise ArgumentTypeError(f"{fn}: {param} must be a bool, got {_described(value)}")


def choice(fn, param, value, options):
    """``value`` when it is one of the strings ``options``; ArgumentTypeError for a value
    that is no string, ArgumentError naming the options for another string."""
    if value.__class__ is str and value in options:
        return value
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{fn}: {param} must be a str, got {_described(value)}")
    listed = ", ".join(repr(o) for o in options)
    raise ArgumentError(f"{fn}: {param} must be one of {listed}, got {value!r}")


def sizes(fn, param, value, n):
    """``value`` (an int, or a list / tuple / 1-D Tensor of n ints: a kernel size, stride or
    dilation per spatial dim) as a list of n ints."""
    if value.__class__ is int:
        return [value] * n
    if isinstance(value, (list, tuple, Tensor, np.ndarray)):
        out = integers(fn, param, value)
        if len(out) != n:
            raise ArgumentError(f"{fn}: {param} must be an int or {n} ints, got {_shown(value)}")
        return out
    return [integer(fn, param, value)] * n


def explain_numbers(fn, **values):
    """Called where float() of the number parameters ``values`` of ``fn`` failed (a hot
    function converts them itself, at no cost until then): raises what ``number`` says of
    the first that is no number; returns when all are (the failure was elsewhere)."""
    for param, value in values.items():
        number(fn, param, value)
