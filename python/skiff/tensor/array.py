"""Tensor arrays of static programs (Paddle's create_array / array_write / array_read):
a variable holding a list of tensors that a while loop's steps grow; ``to_tensor``
stacks or concatenates the entries."""
from .. import _C_ops
from ..framework.program import default_main_program
from ..framework.variable import Variable

__all__ = []


def constant(value, dtype, shape=()):
    """A tensor of ``shape`` filled with ``value`` in the current block."""
    return _C_ops.fill_constant(shape=list(shape), value=float(value), dtype=dtype)


def _index(index):
    return index if isinstance(index, Variable) else constant(index, "int64")


def create(dtype, items=()):
    """A tensor array variable in the current block holding ``items``."""
    array = default_main_program().current_block().create_var(dtype=dtype, type="tensor_array")
    for k, item in enumerate(items):
        write(array, k, item)
    return array


def write(array, index, value):
    """Sets entry ``index`` (an int or an int64 variable) of ``array`` to ``value``."""
    _C_ops.write_to_array(value, _index(index), out=[array])
    return array


def read(array, index):
    """Entry ``index`` (an int or an int64 variable) of ``array``."""
    return _C_ops.read_from_array(array, _index(index))


def length(array):
    """The number of entries of ``array``: an int64 Tensor known when the program runs."""
    return _C_ops.array_length(array)


def to_tensor(array, axis, use_stack):
    """The entries of ``array`` stacked (``use_stack``) or concatenated along ``axis``."""
    return _C_ops.tensor_array_to_tensor(array, axis=int(axis), use_stack=bool(use_stack))
