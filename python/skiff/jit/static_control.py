"""cond / while ops for converted control flow whose condition is a Tensor (static
Variables while to_static traces). The values a branch or loop step produces are
flattened to leaves: Variables go through the op; Python numbers that differ between
branches (or steps) become tensors; lists grown in a loop become tensor arrays; a
value that cannot be carried (None, an unassigned name) raises an error naming the
variable and the user's line, never a silently different result."""
from .. import _C
from .. import _C_ops
from ..framework import core, nest
from ..framework.nest import flatten
from ..framework.variable import Variable
from ..tensor import array as tensor_array, manipulation
from ..tensor.array import constant
from ..tensor.control_flow import while_loop
from ..tensor.run_dims import dim
from ..framework.source import user_source
from .ast_lowering import JST, RETURN_FLAG, RETURN_VALUE
import numpy as np

Error = _C.Error


def is_static_var(x):
    return isinstance(x, Variable)


def is_array(x):
    return isinstance(x, ArrayList) or (is_static_var(x) and x.type == "tensor_array")


class UndefinedVar:
    """The value of a name nothing has assigned yet; any use raises the error Python
    would (UnboundLocalError), naming the variable."""
    __slots__ = ("name",)

    def __init__(self, name):
        object.__setattr__(self, "name", name)

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(
            f"local variable '{self.name}' is used before a value is assigned to it")

    __getattr__ = __call__ = __getitem__ = __iter__ = __len__ = __bool__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __index__ = __int__ = __float__ = _fail

    def __repr__(self):
        return f"<undefined {self.name}>"


def _is_undefined(x):
    return isinstance(x, UndefinedVar)


_NUMBER = (bool, int, float)


def _is_number(x):
    return isinstance(x, _NUMBER + (np.number, np.bool_))


def is_numeric_ndarray(x):
    """A numpy array of bools, integers or floats (what can become a Tensor)."""
    return isinstance(x, np.ndarray) and x.dtype.kind in "biuf"


# ---- nested structures --------------------------------------------------------------

class Filler:
    """The structure of ``value`` (a Tensor, a number, or lists, tuples and dicts of them)
    with zeros for its Tensors: what a variable holds on a path that did not assign it
    (a loop that runs no step, the branch without the `return`), where the converted code
    never reads it. ``refuse(reason)`` makes the error for a value it cannot stand for
    (a Tensor whose shape is known only when the program runs, a tensor array)."""

    def __init__(self, value, refuse):
        leaves = []
        self.spec = flatten(value, leaves)
        self.leaves = []
        for v in leaves:
            if is_array(v) or isinstance(v, list):
                raise refuse(f"it holds {describe(v)}")
            if is_static_var(v) or is_eager_tensor(v):
                shape = list(v.shape)
                if any(d < 0 for d in shape):
                    raise refuse(f"its shape {shape} is known only when the program runs")
                self.leaves.append((v._dtype_name, shape))
            elif _is_undefined(v):
                raise refuse("part of it is undefined")
            else:
                self.leaves.append(v)  # numbers and other Python values: kept as they are

    def build(self):
        """The structure, its zeros made in the current block."""
        return unflatten(self.spec, [constant(0, *v) if isinstance(v, tuple) else v
                                     for v in self.leaves])


unflatten = nest.pack


def is_eager_tensor(value):
    """A Tensor holding a value (made by to_tensor, zeros, full, ... while tracing), not a
    program variable."""
    return isinstance(value, _C.Tensor) and not is_static_var(value)


def as_program_var(value):
    """A program variable holding an eager Tensor's value (an assign of it)."""
    return _C_ops.assign(value)


def subject(name, kind="variable"):
    """How an error names the variable ``name``: the user's names as they wrote them;
    the converter's own ones by what they stand for."""
    if name == "<value>":
        return "the value of this conditional expression"
    if name == RETURN_VALUE:
        return "the value of a `return` inside the loop"
    if name == RETURN_FLAG:
        return "whether a `return` inside the loop was reached"
    if name.startswith(JST + "_"):
        return "a counter to_static keeps for a `for` or a `break`"
    return f"{kind} '{name}'"


def describe(value):
    if _is_undefined(value):
        return "undefined"
    if value is None:
        return "None"
    if is_array(value):
        return "a tensor array"
    if is_static_var(value):
        return f"a Tensor ({value.dtype.name if hasattr(value.dtype, 'name') else value.dtype})"
    if is_eager_tensor(value):
        return f"a Tensor made eagerly ({value._dtype_name}{list(value.shape)})"
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of {len(value)}"
    if hasattr(value, "__array__") and hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"an ndarray ({value.dtype}{list(value.shape)})"
    return f"the {type(value).__name__} {value!r}"


# ---- tensors from Python values -----------------------------------------------------

def _number_dtype(*values):
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, (bool, int)) for v in values):
        return "int64"
    return "float32"


def _known_shape(var):
    shape = var.shape
    return shape if all(d >= 0 for d in shape) else []


def logical(op, x, y):
    x, y = _as_bool(x), _as_bool(y)
    return core.apply(op, x, y)


def logical_not(x):
    return _C_ops.logical_not(_as_bool(x))


def as_condition(x):
    """A bool Variable for a condition Variable: non-bool values test != 0."""
    if x._dtype_name == "bool":
        return x
    return _C_ops.not_equal(x, constant(0, x._dtype_name))


def stack(x, axis=0, name=None):
    """skiff.stack that also takes a list grown into a tensor array."""
    if is_array(x):
        return array_to_tensor(x, axis, True)
    return manipulation.stack(x, axis)


def concat(x, axis=0, name=None):
    """skiff.concat that also takes a list grown into a tensor array."""
    if is_array(x):
        return array_to_tensor(x, axis, False)
    return manipulation.concat(x, axis)


def _as_bool(x):
    if not is_static_var(x):
        return constant(bool(x), "bool")
    if x._dtype_name != "bool":
        return _C_ops.cast(x, out_dtype="bool")
    return x


def range_cond(i, stop, step):
    up = logical("logical_and", _C_ops.greater_than(step, constant(0, step._dtype_name)),
                 _compare("less_than", i, stop))
    down = logical("logical_and", _C_ops.less_than(step, constant(0, step._dtype_name)),
                   _compare("greater_than", i, stop))
    return logical("logical_or", up, down)


def _compare(op, x, y):
    if not is_static_var(x):
        x = constant(x, y._dtype_name)
    if not is_static_var(y):
        y = constant(y, x._dtype_name)
    return core.apply(op, x, y)


# ---- tensor arrays ------------------------------------------------------------------

def _user_line():
    source = user_source()
    return f"{source}: " if source else ""


class ArrayList:
    """A Python list grown inside a loop on a Tensor: a tensor array variable that takes
    ``append``, ``xs[i]`` (Tensor or int index, negative from the end), ``len(xs)``
    in converted code, and skiff.stack / skiff.concat."""

    def __init__(self, var):
        self.var = var

    def append(self, value):
        if not is_static_var(value):
            raise Error(f"{_user_line()}a list that a loop on a Tensor made a tensor array "
                        f"takes Tensors; got {describe(value)}")
        array_write(self.var, length(self.var), value)

    def __getitem__(self, index):
        if isinstance(index, int) and index < 0:
            index = _C_ops.elementwise_add(length(self.var), constant(index, "int64", [1]))
        return array_read(self.var, index)

    def pop(self, index=-1):
        """Removes and returns entry ``index`` (an int, negative from the end, or a
        non-negative int64 Tensor): the list becomes a new tensor array of the other
        entries, copied in order (gradients flow through the copies)."""
        n = length(self.var)
        if is_static_var(index):
            at = _C_ops.reshape(_C_ops.cast(index, out_dtype="int64"), shape=[1])
        elif isinstance(index, int) and not isinstance(index, bool):
            at = _C_ops.elementwise_add(n, constant(index, "int64", [1])) if index < 0 \
                else constant(index, "int64", [1])
        else:
            raise Error(f"{_user_line()}pop() of a list that a loop on a Tensor made a tensor "
                        f"array takes an int or an int64 Tensor index, got {describe(index)}")
        value = array_read(self.var, at)
        rest = new_array(self.var._dtype_name)
        one = constant(1, "int64", [1])
        after = _C_ops.elementwise_add(at, one)
        for start, stop, shift in ((constant(0, "int64", [1]), at, None), (after, n, one)):
            def step(j, shift=shift):
                to = j if shift is None else _C_ops.elementwise_sub(j, shift)
                array_write(rest, to, array_read(self.var, j))
                return [_C_ops.elementwise_add(j, one)]
            while_loop(lambda j, stop=stop: _C_ops.less_than(j, stop), step,
                                 [start])
        self.var = rest
        return value

    def __len__(self):
        raise Error(f"{_user_line()}the length of a list that a loop on a Tensor made a tensor "
                    f"array is known only when the program runs; use it in converted code "
                    f"(len(xs) there gives a Tensor)")

    def __iter__(self):
        raise Error(f"{_user_line()}a list that a loop on a Tensor made a tensor array can be "
                    f"iterated in converted code only (for x in xs); or index it with xs[i]")

    def __repr__(self):
        return f"ArrayList({self.var.name})"


def _array_var(x):
    return x.var if isinstance(x, ArrayList) else x


def new_array(dtype, items=()):
    """A tensor array variable in the current block holding ``items``."""
    return tensor_array.create(dtype, items)


def array_write(array, index, value):
    tensor_array.write(_array_var(array), index, value)
    return array


def array_read(array, index):
    return tensor_array.read(_array_var(array), index)


def array_to_tensor(array, axis, use_stack):
    """The entries of a tensor array stacked (or concatenated) along ``axis``."""
    return tensor_array.to_tensor(_array_var(array), axis, use_stack)


def length(x):
    """The length of a tensor array, or the first dim of a Variable (a Python int when
    known while building)."""
    if is_array(x):
        out = _C_ops.array_length(_array_var(x))
        out._python_int = True
        return out
    first = x.shape[0] if x.shape else -1
    return first if first >= 0 else dim(x, 0)


def item(seq, i):
    """seq[i] for a tensor array or along a Variable's first dim."""
    if is_array(seq):
        return array_read(seq, i)
    if not is_static_var(i):
        return seq[i]
    index = _C_ops.reshape(i, shape=[])
    return _C_ops.gather(seq, index)  # a rank-0 index drops the axis


__all__ = ["is_static_var", "is_array", "flatten", "unflatten"]
