"""The Tensor parameters of public functions, checked at the API edge. A package's public
namespace (skiff.tensor, skiff.nn.functional, skiff.linalg) passes its functions through
``check_exports``; each function with Tensor parameters is replaced there by a wrapper of
the same signature that checks them and calls it:

    skiff.bmm(x, -5)   ->  TypeError: bmm: y must be a Tensor, got int

Which parameters are Tensors follows from their names (``TENSOR_NAMES``: x, y, input,
label, ...; a default of None makes one optional); ``accepts`` marks a function whose
parameters take more (numbers, arrays, lists of Tensors) or are not Tensors at all.
Functions inside skiff call each other unwrapped. The wrapper is generated once per
function; a call costs one frame and a class test per Tensor parameter."""
import functools
import inspect
import linecache
import numbers
import os
import types

import numpy as np

from .._C import Error, Tensor
from . import scalar_params
from .arguments import FLOAT_DTYPES, ArgumentError, ArgumentTypeError, dtype_name_of, \
    is_floating, is_tensor, kind_of


class Kind:
    """What a parameter accepts: ``accepts`` says it in messages, ``admits(value)`` tests
    a value that is not a Tensor; ``per_call`` kinds are tested on every call (lists, which
    must not be empty, as Paddle's), the others only when the value is not a Tensor."""

    __slots__ = ("accepts", "admits", "per_call", "floating")

    def __init__(self, accepts, admits, per_call=False, floating=False):
        self.accepts, self.admits, self.per_call = accepts, admits, per_call
        self.floating = floating  # a Tensor of a floating dtype, tested on every call


def _is_operand(v):
    return isinstance(v, (numbers.Number, np.generic, np.ndarray, list, tuple))


def _is_index(v):
    return isinstance(v, (numbers.Integral, np.integer, np.ndarray, list, tuple)) \
        and not isinstance(v, bool)


def _is_tensor_list(v):
    return isinstance(v, (list, tuple)) and all(is_tensor(t) for t in v)


def _is_array_list(v):
    return isinstance(v, (list, tuple)) and all(
        is_tensor(t) or _is_operand(t) for t in v)


TENSOR = Kind("a Tensor", is_tensor)
# For functions composed of ops without integer kernels (whose names would otherwise show).
FLOATING = Kind("a floating-point Tensor", is_floating, floating=True)
# Python numbers and arrays, which the function turns into tensors (arithmetic, compare);
# of a function's two operands one must be a Tensor.
OPERAND = Kind("a Tensor, a number or an array", lambda v: is_tensor(v) or _is_operand(v))
# The same, where numbers on both sides are fine too (where's x and y).
VALUE = Kind(OPERAND.accepts, OPERAND.admits)
# Indices given as ints, lists or arrays, which the function turns into an int64 tensor.
INDEX = Kind("a Tensor or a list of ints", lambda v: is_tensor(v) or _is_index(v))
TENSORS = Kind("a list or tuple of Tensors", _is_tensor_list, per_call=True)
TENSORS_OR_TENSOR = Kind("a Tensor or a list of Tensors",
                         lambda v: is_tensor(v) or _is_tensor_list(v), per_call=True)
# Lists whose entries the function turns into tensors (hstack, atleast_*).
ARRAYS = Kind("a list or tuple of Tensors or arrays", _is_array_list, per_call=True)
# Not checked: the parameter's name says Tensor, but the function takes anything there.
ANY = Kind("anything", lambda v: True)

TENSOR_NAMES = ("x", "y", "input", "other", "label", "x1", "x2", "input1", "input2", "arr",
                "logit", "logits", "anchor", "positive", "negative", "mask", "condition",
                "updates", "src", "sorted_sequence", "weight", "bias", "query", "key",
                "target", "running_mean", "running_var", "indices")
_CONVENTION = dict({n: TENSOR for n in TENSOR_NAMES}, index=INDEX)


def accepts(**kinds):
    """Marks a function's parameters whose kinds differ from what their names say (a
    Kind each: OPERAND, INDEX, TENSORS, ARRAYS, ANY, or TENSOR for another name)."""
    def mark(fn):
        fn._param_kinds = dict(getattr(fn, "_param_kinds", {}), **kinds)
        return fn
    return mark


def self_checked(fn):
    """Marks a hot function that checks its Tensor parameters itself, where its fast path
    fails or is not taken (a wrapper's frame would cost ~10% of a small eager op):
    check_exports leaves it as it is."""
    fn._checks_tensor_params = True
    return fn


class _TensorClasses:
    """The classes a Tensor argument is tested against without a call: Tensor, and each
    subclass (Parameter, ...) once it has been seen. Sets shared by every wrapper."""

    def __init__(self):
        self.required = {Tensor}
        self.optional = {Tensor, type(None)}
        self.operand = {Tensor, int, float}

    def add(self, cls):
        for s in (self.required, self.optional, self.operand):
            s.add(cls)


_classes = _TensorClasses()


def _checker(fn_name, param, kind, optional):
    """The slow path of one parameter's check: returns the value when ``kind`` admits it
    (None too when ``optional``), raises TypeError naming the function otherwise."""
    def check(value):
        if isinstance(value, Tensor):
            sparse = getattr(value.__class__, "_sparse_format", None)
            if sparse:  # skiff.sparse's tensors hold no dense value
                raise ArgumentTypeError(
                    f"{fn_name}: {param} is a sparse {sparse.upper()} Tensor; this function "
                    f"takes dense Tensors (use skiff.sparse's functions, or {param}.to_dense())")
            _classes.add(value.__class__)
            if not kind.per_call and not kind.floating:
                return value
        if kind.per_call and isinstance(value, (list, tuple)) and not value:
            raise ArgumentError(f"{fn_name}: {param} must hold at least one Tensor")
        if (optional and value is None) or kind.admits(value):
            return value
        also = " or None" if optional else ""
        got = dtype_name_of(value) if kind.floating and is_tensor(value) else kind_of(value)
        raise ArgumentTypeError(f"{fn_name}: {param} must be {kind.accepts}{also}, got {got}")
    return check


def _op_error_namer(fn_name):
    """The function that, for a skiff.Error an op raised inside the public function
    ``fn_name`` ("op 'gather', inputs: ..."), gives the same error naming fn_name first
    ("index_select: op 'gather', ..."); None for errors that name it already."""
    def name_op_error(error):
        text = str(error)
        if not text.startswith("op '") or text.startswith(f"op '{fn_name}'"):
            return None
        return type(error)(f"{fn_name}: {text}")
    return name_op_error


def _one_tensor_check(fn_name, kinds):
    """The check that one of a binary function's two OPERAND parameters is a Tensor (None
    for a function without two)."""
    operands = [p for p, (kind, _) in kinds.items() if kind is OPERAND]
    if len(operands) != 2:
        return None
    a, b = operands

    def check(x, y):
        if not (is_tensor(x) or is_tensor(y)):
            raise ArgumentTypeError(f"{fn_name}: {a} or {b} must be a Tensor, got "
                                    f"{kind_of(x)} and {kind_of(y)}")
    return check


def _kinds(fn, params):
    """{parameter: (Kind, optional)} for fn's checked parameters, in signature order."""
    marked = getattr(fn, "_param_kinds", {})
    out = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = marked.get(p.name, _CONVENTION.get(p.name))
        if kind is None or kind is ANY:
            continue
        if p.default is not inspect.Parameter.empty and p.default is not None:
            if p.name not in marked:
                continue  # a name of the convention used for a number (scale's bias=0.0)
        out[p.name] = (kind, p.default is None)
    return out


def _source(name, params, kinds, scalars):
    """The wrapper's source: fn's parameter list (defaults filled in afterwards), one
    test per checked parameter, then the call of fn, whose failures are explained by its
    number, flag, size and text parameters (``scalars``) at no cost until then."""
    P = inspect.Parameter
    head, call, slash, star = [], [], False, False
    for p in params:
        if p.kind is P.POSITIONAL_ONLY:
            slash = True
        elif slash:
            head.append("/")
            slash = False
        if p.kind is P.KEYWORD_ONLY and not star:
            head.append("*")
            star = True
        if p.kind is P.VAR_POSITIONAL:
            head.append("*" + p.name)
            call.append("*" + p.name)
            star = True
        elif p.kind is P.VAR_KEYWORD:
            head.append("**" + p.name)
            call.append("**" + p.name)
        else:
            head.append(p.name + _default_text(p.default))
            call.append(f"{p.name}={p.name}" if p.kind is P.KEYWORD_ONLY else p.name)
    if slash:
        head.append("/")
    body = []
    operands = [p for p, (kind, _) in kinds.items() if kind is OPERAND]
    if len(operands) == 2:  # numbers on both sides: there is no Tensor to compute with
        a, b = operands
        body.append(f"    if {a}.__class__ not in _required and {b}.__class__ not in _required:"
                    f" _one_tensor({a}, {b})")
    for i, (pname, (kind, optional)) in enumerate(kinds.items()):
        if kind is TENSORS:  # the common case, a list of Tensors, tested inline
            body += [f"    if {pname}.__class__ is not list and {pname}.__class__ is not tuple "
                     f"or not {pname}:",
                     f"        {pname} = _check{i}({pname})",
                     "    else:",
                     f"        for _t in {pname}:",
                     "            if _t.__class__ not in _required:",
                     f"                {pname} = _check{i}({pname})",
                     "                break"]
            continue
        if kind.per_call:
            body.append(f"    {pname} = _check{i}({pname})")
            continue
        fast = "_operand" if kind in (OPERAND, VALUE) else "_optional" if optional \
            else "_required"
        test = f"{pname}.__class__ not in {fast}"
        if kind.floating:
            test = f"{pname}.__class__ not in _required or {pname}._dtype_name not in _floats"
            if optional:
                test = f"{pname} is not None and ({test})"
        body.append(f"    if {test}: {pname} = _check{i}({pname})")
    # an op failing inside fn is reported as fn's, Python's own failures explained by the
    # argument of the wrong kind (costs nothing until fn fails)
    values = ", ".join(f"{p!r}: {p}" for p in scalars)
    body += ["    try:", f"        return _fn({', '.join(call)})", "    except _Error as _e:",
             "        _named = _name_op_error(_e)", "        if _named is None:",
             "            raise", "        raise _named from None",
             "    except Exception as _e:", f"        _why = _explain(_e, {{{values}}})",
             "        if _why is None:", "            raise", "        raise _why from None"]
    return f"def {name}({', '.join(head)}):\n" + "\n".join(body) + "\n"


def _default_text(default):
    """How the wrapper's source shows a default: a literal as itself, others as "=..."
    (the real defaults are fn's own, set on the wrapper after it is made)."""
    if default is inspect.Parameter.empty:
        return ""
    if default is None or isinstance(default, (bool, int, float, str)):
        return "=" + repr(default)
    return "=..."


def _compile(source, fn):
    """The wrapper's code, under a file name inside the skiff package (errors then point at
    the caller's line, not at the wrapper) whose lines tracebacks can show."""
    where = f"<checked {fn.__module__}.{fn.__qualname__}>"
    filename = os.path.join(os.path.dirname(__file__), where)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return compile(source, filename, "exec")


_wrappers = {}


def checked(fn, shown=None, tensors=True):
    """fn's checking wrapper (one per function and ``shown``, the name its messages give,
    fn's own by default), or fn itself when it has neither Tensor nor number parameters or
    checks them itself. ``tensors`` False: fn's parameters are not taken for Tensors by
    their names (a constructor's ``weight``); only its failures are explained."""
    wrapper = _wrappers.get((fn, shown, tensors))
    if wrapper is not None:
        return wrapper
    params = list(inspect.signature(fn).parameters.values())
    kinds = _kinds(fn, params) if tensors else {}
    skip = set(kinds) | set(getattr(fn, "_param_kinds", {}))
    scalars = scalar_params.kinds_of(fn, skip)
    scalar_params.register(fn, shown or fn.__name__, scalars)
    if getattr(fn, "_checks_tensor_params", False):
        return fn
    if not kinds and not scalars:
        _wrappers[(fn, shown, tensors)] = fn
        return fn
    name = fn.__name__ if fn.__name__.isidentifier() else "wrapper"
    env = {"_fn": fn, "_required": _classes.required, "_optional": _classes.optional,
           "_operand": _classes.operand, "_floats": FLOAT_DTYPES,
           "_one_tensor": _one_tensor_check(shown or fn.__name__, kinds), "_Error": Error,
           "_name_op_error": _op_error_namer(shown or fn.__name__),
           "_explain": scalar_params.explainer(shown or fn.__name__, scalars)}
    for i, (pname, (kind, optional)) in enumerate(kinds.items()):
        env[f"_check{i}"] = _checker(shown or fn.__name__, pname, kind, optional)
    exec(_compile(_source(name, params, kinds, scalars), fn), env)
    wrapper = env[name]
    signed = inspect.unwrap(fn)  # the function whose signature (and defaults) params are
    wrapper.__defaults__ = signed.__defaults__
    wrapper.__kwdefaults__ = signed.__kwdefaults__
    functools.update_wrapper(wrapper, fn)
    wrapper._checks_tensor_params = True
    _wrappers[(fn, shown, tensors)] = wrapper
    return wrapper


def check_layer_inputs(namespace):
    """Gives each skiff layer class in ``namespace`` a forward that checks its Tensor
    inputs, its messages naming the class (an inherited forward is wrapped again)."""
    for value in list(namespace.values()):
        forward = getattr(value, "forward", None) if isinstance(value, type) else None
        if isinstance(forward, types.FunctionType) and value.__module__.startswith("skiff."):
            forward = getattr(forward, "__wrapped__", forward)
            if forward.__module__.startswith("skiff."):
                value.forward = checked(forward, value.__name__)
    check_classes(namespace, ("__init__",))


def check_classes(namespace, methods=("__init__", "__call__")):
    """Gives each skiff class in ``namespace`` ``methods`` (those it defines itself) whose
    failures inside are explained by the argument of the wrong kind, naming the class
    (``scalar_params``); costs a frame per call, nothing more until one fails."""
    for cls in list(namespace.values()):
        if not isinstance(cls, type) or not cls.__module__.startswith("skiff."):
            continue
        for method in methods:
            fn = cls.__dict__.get(method)
            if isinstance(fn, types.FunctionType) and \
                    not getattr(fn, "_checks_tensor_params", False):
                setattr(cls, method, checked(fn, cls.__name__, tensors=False))


def check_exports(namespace, tensors=True):
    """Replaces each public skiff function in ``namespace`` (a package's globals) by its
    checking wrapper, which names that package as its module (pickle finds it there, also
    when fn was made by a factory). ``tensors`` False: parameter names are not taken to
    mean Tensors (image functions take arrays and PIL images as ``img``, ``x``...)."""
    for name, value in list(namespace.items()):
        if not name.startswith("_") and isinstance(value, types.FunctionType) \
                and value.__module__.startswith("skiff."):
            wrapper = namespace[name] = checked(value, tensors=tensors)
            if wrapper is not value and name == wrapper.__name__:
                wrapper.__module__, wrapper.__qualname__ = namespace["__name__"], name
