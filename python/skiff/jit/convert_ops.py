"""Helpers called by converted code (as ``_jst``). Each keeps Python's meaning for
Python values (and for eager Tensors: ``if t`` reads the value), and builds program
ops through skiff.static when a condition is a static Variable (tracing)."""
from .. import _C
from .. import _C_ops
from ..framework.source import user_source
from ..static.debug import Print
from . import static_control
from .static_branches import ifelse
from .static_loops import while_loop
from .static_control import UndefinedVar  # noqa: F401 (converted code's name for it)

Error = _C.Error


def get_vars(frame_locals, names):
    """The current values of ``names`` (an UndefinedVar for each unbound one)."""
    return tuple(frame_locals[n] if n in frame_locals else UndefinedVar(n) for n in names)


is_static = static_control.is_static_var


# ---- if / while ---------------------------------------------------------------------

def convert_ifelse(pred, true_fn, false_fn, values, names, live, side_effects, loc):
    """``if pred`` with branch functions taking and returning the values of ``names``."""
    if not is_static(pred):
        return true_fn(*values) if pred else false_fn(*values)
    _no_side_effects(side_effects, "an `if` whose condition is a Tensor", loc)
    return ifelse(static_control.as_condition(pred), true_fn, false_fn, values,
                                 names, live, loc)


def convert_while(cond_fn, body_fn, values, names, side_effects, loc):
    """``while cond`` with loop functions over the loop-carried ``names``. Runs in Python
    while the condition is a Python value; once it is a Tensor the remaining steps
    become a `while` op."""
    values = tuple(values)
    while True:
        cond = cond_fn(*values)
        if is_static(cond):
            _no_side_effects(side_effects, "a loop whose condition is a Tensor", loc)
            return while_loop(cond_fn, body_fn, values, names, loc)
        if not cond:
            return values
        values = tuple(body_fn(*values))


def convert_ifexp(pred, true_fn, false_fn, loc):
    """``a if pred else b``."""
    if not is_static(pred):
        return true_fn() if pred else false_fn()
    (out,) = ifelse(static_control.as_condition(pred),
                                   lambda _: (true_fn(),), lambda _: (false_fn(),),
                                   (UndefinedVar("<if expression>"),), ("<value>",),
                                   ("<value>",), loc)
    return out


def _no_side_effects(side_effects, where, loc):
    if side_effects:
        raise Error(f"{loc}: to_static cannot convert an attribute assignment inside {where} "
                    f"({', '.join(side_effects)}): it would happen whatever the Tensor's "
                    "value; assign to a local variable and set the attribute after the block")


# ---- and / or / not -----------------------------------------------------------------

def convert_and(first, *rest):
    """``a and b and ...`` (later operands are functions, evaluated as Python would)."""
    value = first
    for fn in rest:
        if is_static(value):
            value = static_control.logical("logical_and", value, fn())
        elif not value:
            return value
        else:
            value = fn()
    return value


def convert_or(first, *rest):
    value = first
    for fn in rest:
        if is_static(value):
            value = static_control.logical("logical_or", value, fn())
        elif value:
            return value
        else:
            value = fn()
    return value


def convert_not(value):
    if is_static(value):
        return static_control.logical_not(value)
    return not value


# ---- for loops, len, calls ----------------------------------------------------------

def range_args(*args):
    """(start, stop, step) of ``range(*args)``; Tensors allowed."""
    if len(args) == 1:
        return 0, args[0], 1
    if len(args) == 2:
        return args[0], args[1], 1
    if not is_static(args[2]) and args[2] == 0:
        raise ValueError("range() arg 3 must not be zero")
    return args


def range_cond(i, stop, step):
    if is_static(step):
        return static_control.range_cond(i, stop, step)
    return i < stop if step > 0 else i > stop


def for_sequence(iterable):
    """What a ``for`` iterates: a static Variable (over its first dim) stays as is;
    anything else is listed in Python."""
    if is_static(iterable) or static_control.is_array(iterable):
        return iterable
    if isinstance(iterable, _C.Tensor):
        return [iterable[i] for i in range(iterable.shape[0])]
    return list(iterable)


def for_length(seq):
    if isinstance(seq, list):
        return len(seq)
    return static_control.length(seq)


def for_item(seq, i):
    if isinstance(seq, list):
        if is_static(i):
            # The `for` over a list became a tensor loop (a `break` or its condition depends
            # on a Tensor): a list of Tensors is read as a tensor array.
            return static_control.array_read(_list_as_array(seq), i)
        return seq[i]
    return static_control.item(seq, i)


def _list_as_array(items):
    values = [static_control.as_program_var(v) if static_control.is_eager_tensor(v) else v
              for v in items]
    dtypes = {v._dtype_name for v in values if is_static(v)}
    if not values or len(dtypes) != 1 or not all(is_static(v) for v in values):
        kinds = ", ".join(sorted({static_control.describe(v) for v in values})) or "nothing"
        raise Error(f"{user_source()}: this `for` loop over a list became a tensor loop (a "
                    f"`break` or the loop's condition depends on a Tensor), so the list is read "
                    f"by a Tensor index as a tensor array, which holds Tensors of one dtype; it "
                    f"holds {kinds}")
    return static_control.new_array(values[0]._dtype_name, values)


def convert_print(*args, sep=" ", end="\n", file=None, flush=False):
    """``print(...)``: with static variables among the arguments, each is shown by a print
    op each time the program runs (its message: the other arguments); else Python's."""
    if not any(is_static(a) for a in args):
        return print(*args, sep=sep, end=end, file=file, flush=flush)
    message = sep.join(str(a) for a in args if not is_static(a))
    for a in args:
        if is_static(a):
            Print(a, message=message, print_phase="forward")
    return None


def convert_shape(x):
    """``x.shape``: for a Variable with dims unknown while building, those dims are
    int64 Tensors (so ``range(x.shape[0])`` becomes a loop on a Tensor)."""
    if is_static(x):
        shape = x.shape
        if any(d < 0 for d in shape):
            return [d if d >= 0 else static_control.dim(x, k) for k, d in enumerate(shape)]
        return shape
    return x.shape


def convert_len(x):
    """``len(x)``: a Tensor for tensor arrays and dims unknown until run time."""
    if is_static(x) or static_control.is_array(x):
        return static_control.length(x)
    return len(x)


def convert_isinstance(value, kinds):
    """isinstance, where a program variable stands for the Tensor it will hold: an instance
    of skiff.Tensor (and of its bases) as in eager code."""
    if is_static(value):
        classes = kinds if isinstance(kinds, tuple) else (kinds,)
        if any(isinstance(k, type) and issubclass(_C.Tensor, k) for k in classes):
            return True
    return isinstance(value, kinds)


def convert_assert(test, message, loc):
    """`assert test, message()`: a Tensor condition becomes an assert op, checked when the
    program runs (every element must be true); a Python one is checked now."""
    if is_static(test):
        text = message()
        detail = f": {text}" if text is not None else ""
        _C_ops.assert_(static_control.as_condition(test), message=f"{loc}: assertion failed{detail}")
        return
    if not test:
        text = message()
        raise AssertionError(text) if text is not None else AssertionError()


def python_scalar(kind):
    """float/int/bool that explain why a Tensor being traced has no Python value."""
    def convert(value=0, *args):
        if is_static(value):
            raise Error(f"{user_source()}: {kind.__name__}() of a Tensor inside to_static code: "
                        "its value is known only when the program runs (a loop counter "
                        "becomes a Tensor once the loop's condition is one); keep it a Tensor, "
                        "e.g. x.astype('float32')")
        return kind(value, *args)
    return convert
