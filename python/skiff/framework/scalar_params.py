"""What the number, flag, size and text parameters of the public functions take, used to
explain a failure after it happened. A public function converts such arguments itself
(``float(alpha)`` on its fast path); when Python or numpy then fails inside it, the
checking wrapper (``tensor_params``) asks ``explain`` which argument was of the wrong kind:

    skiff.nn.functional.hardtanh(x, min='bool')
    ->  ArgumentTypeError: hardtanh: min must be a number, got str 'bool'

A parameter's kind follows from its default (a float default takes a number, a bool default
a flag, a str default a string, an int default an int or a list of them) or, for a few
names without defaults, from the name (``shape``, ``kernel_size``, ``num_classes``, ...).
The kinds are loose: they only tell which argument a failure is to be blamed on, and cost
nothing until a call has failed."""
import inspect
import linecache
import numbers
import os

import numpy as np

from .._C import Error, Tensor
from .arguments import ArgumentTypeError, kind_of

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_number(v):
    return isinstance(v, (numbers.Real, np.number, np.bool_, Tensor)) or (
        isinstance(v, np.ndarray) and v.size == 1)


def _is_flag(v):
    return v is None or isinstance(v, (bool, numbers.Integral, np.bool_, np.integer)) or (
        isinstance(v, (Tensor, np.ndarray)) and int(np.prod(v.shape)) == 1)


def _is_sizes(v):
    return isinstance(v, (numbers.Integral, np.integer, list, tuple, Tensor, np.ndarray)) \
        and not isinstance(v, (bool, np.bool_))


def _is_integral(v):
    return _is_sizes(v) or isinstance(v, (numbers.Real, np.number))


def _is_padding(v):
    return _is_integral(v) or isinstance(v, str)


def _is_text(v):
    return v is None or isinstance(v, str)


# (what a message says the parameter takes, the test of a value)
NUMBER = ("a number", _is_number)
FLAG = ("a bool", _is_flag)
INTEGRAL = ("a number or a list of them", _is_integral)
SIZES = ("an int, a list of ints or an integer Tensor", _is_sizes)
PADDING = ("an int, a list of ints or a padding name", _is_padding)
TEXT = ("a str", _is_text)
NUMBER_OR_NONE = ("a number or None", lambda v: v is None or _is_number(v))
SIZES_OR_NONE = ("an int, a list of ints, an integer Tensor or None",
                 lambda v: v is None or _is_sizes(v))

# Parameters without a default whose names say they take sizes or counts.
SIZE_NAMES = frozenset(("shape", "kernel_size", "output_size", "num_classes", "upscale_factor",
                        "downscale_factor", "num_groups", "repeat_times", "num_samples",
                        "groups", "normalized_shape", "perm", "dims", "chunks", "shifts",
                        "num_embeddings", "embedding_dim", "in_features", "out_features",
                        "in1_features", "in2_features", "num_features", "num_channels",
                        "in_channels", "out_channels", "input_size", "hidden_size",
                        "feature_size", "d_model", "nhead", "dim_feedforward", "embed_dim",
                        "num_heads", "num_parameters", "cutoffs", "n_classes"))


# Parameters whose default is None and whose names say they take a number.
NUMBER_NAMES = frozenset(("min", "max", "value", "scale", "alpha", "beta", "epsilon", "eps",
                          "delta", "margin", "rtol", "atol", "posinf", "neginf", "nan",
                          "threshold", "temperature", "lower", "upper", "fill_value",
                          "negative_slope", "lambd", "momentum", "rcond", "tol"))


# Words in the names of int parameters that may also take a list (a stride per dim, axes).
_LIST_WORDS = ("stride", "dilation", "kernel", "axis", "axes", "dim", "size", "shape",
               "shift", "repeat", "section", "perm", "index", "output")


def kinds_of(fn, skip=()):
    """{parameter: kind} for fn's number, flag, size and text parameters (those named in
    ``skip``, the Tensor ones, left out)."""
    out = {}
    for p in inspect.signature(fn).parameters.values():
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = _kind_by_default(p.name, p.default)
        if kind is not None:
            out[p.name] = kind
    return out


def _kind_by_default(name, default):
    if default is inspect.Parameter.empty:
        return SIZES if name in SIZE_NAMES else NUMBER if name in NUMBER_NAMES else None
    if default is None:
        return NUMBER_OR_NONE if name in NUMBER_NAMES else \
            SIZES_OR_NONE if name in SIZE_NAMES else None
    if default is True or default is False:
        return FLAG
    if isinstance(default, float):
        return NUMBER
    if isinstance(default, int):
        if "padding" in name:
            return PADDING
        return INTEGRAL if any(w in name for w in _LIST_WORDS) else NUMBER
    if isinstance(default, str):
        return TEXT
    return None


_explained = {}  # code object of a public function -> (its shown name, {parameter: kind})


def register(fn, shown, kinds):
    """Lets failures inside ``fn`` (its own code, however it is called) be explained by
    ``kinds`` of its parameters, naming it ``shown``. A code object that several functions
    share (made by one factory) names none of them: only their own wrappers explain."""
    if not kinds:
        return
    code = fn.__code__
    if code not in _explained:
        _explained[code] = (shown, kinds)
    elif _explained[code] is not None and _explained[code][0] != shown:
        _explained[code] = None


def explain(error, shown=None, kinds=None, values=None):
    """For an exception Python or numpy raised inside public functions (not a skiff.Error,
    not one skiff raised on purpose): the ArgumentTypeError naming the function with an
    argument of the wrong kind, or None when every argument looks right. ``values``: the
    arguments of the call the user made (of the function ``shown``), looked at first; then
    the registered functions the failure passed through, outermost first."""
    if isinstance(error, Error) or _raised_on_purpose(error):
        return None
    if values is not None:
        found = _wrong_argument((shown, kinds), values)
        if found is not None:
            return found
    tb = error.__traceback__
    while tb is not None:
        entry = _explained.get(tb.tb_frame.f_code)
        if entry is not None:
            found = _wrong_argument(entry, tb.tb_frame.f_locals)
            if found is not None:
                return found
        tb = tb.tb_next
    return None


def explainer(shown, kinds):
    """explain for the calls of the public function ``shown`` (parameter ``kinds``):
    a function of (error, {parameter: value})."""
    def explain_call(error, values):
        return explain(error, shown, kinds, values)
    return explain_call


def _wrong_argument(entry, values):
    shown, kinds = entry
    for param, (accepts, admits) in kinds.items():
        if param in values and not admits(values[param]):
            return ArgumentTypeError(f"{shown}: {param} must be {accepts}, got "
                                     f"{_described(values[param])}")
    return None


def _described(value):
    if isinstance(value, (Tensor, np.ndarray)):
        return kind_of(value) if isinstance(value, Tensor) else \
            f"an array of {value.dtype} and shape {list(value.shape)}"
    text = repr(value)
    return type(value).__name__ + (f" {text}" if len(text) <= 40 else "")


def _raised_on_purpose(error):
    """True when a raise statement in skiff raised ``error`` (its message is skiff's)."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    if not os.path.abspath(filename).startswith(_PACKAGE):
        return False
    return linecache.getline(filename, tb.tb_lineno).lstrip().startswith("raise")
