"""Tensor methods that convert or describe a tensor in Paddle 3.x's torch-style
spellings: the dtype shortcuts (x.float(), x.long(), ...), type_as, cpu, copy_, detach_,
deep copies, shape and storage predicates, and x.softmax(dim). Installed on Tensor by
tensor/methods.py."""
from .. import _C_ops
from ..framework import arguments
from ..framework.grad_mode import no_grad
from .math import cast
from .scalars import dtype_name_of
from .inplace import write
from .manipulation import expand

# Shortcut name -> the dtype x.<name>() converts to.
DTYPE_SHORTCUTS = {"bfloat16": "bfloat16", "bool": "bool", "byte": "uint8", "char": "int8",
                   "double": "float64", "float": "float32", "float16": "float16",
                   "float32": "float32", "float64": "float64", "half": "float16",
                   "int": "int32", "int8": "int8", "int16": "int16", "int32": "int32",
                   "int64": "int64", "long": "int64", "short": "int16", "uint8": "uint8"}

# The Tensor methods this module defines (installed by tensor/methods.py).
METHODS = ["type_as", "cpu", "value", "copy_", "detach_", "__pos__", "__deepcopy__",
           "ndimension", "is_same_shape", "is_dense", "is_sparse", "is_sparse_coo",
           "is_sparse_csr", "is_selected_rows", "is_dist", "__nonzero__", "__long__",
           "__complex__", "softmax"]


def _shortcut(dtype):
    def convert(x):
        """x itself when already of this dtype, else x cast to it."""
        return x if dtype_name_of(x) == dtype else cast(x, dtype)

    convert.__name__ = convert.__qualname__ = f"to_{dtype}"
    return convert


SHORTCUTS = {name: _shortcut(dtype) for name, dtype in DTYPE_SHORTCUTS.items()}


def type_as(x, other):
    """x cast to ``other``'s dtype (x itself when they agree)."""
    return _shortcut(dtype_name_of(other))(x)


def cpu(x):
    """x itself: skiff's tensors live in host memory."""
    return x


def value(x):
    """x itself (a dense tensor is its own value)."""
    return x


def copy_(x, src, blocking=True):
    """src's values written into x (cast to x's dtype, broadcast to x's shape); returns x."""
    src = cast(src, dtype_name_of(x)) if dtype_name_of(src) != dtype_name_of(x) else src
    if list(src.shape) != list(x.shape):
        src = expand(src, list(x.shape))
    return write(x, src)


def detach_(x):
    """Cuts x from the graph in place: it keeps its value and stops gradients; returns x."""
    x.stop_gradient = True
    return x


def __pos__(x):
    """+x: x itself."""
    return x


def __deepcopy__(x, memo):
    """A new tensor with a copy of x's values and x's stop_gradient."""
    with no_grad():
        out = _C_ops.assign(x)
    out.stop_gradient = x.stop_gradient
    memo[id(x)] = out
    return out


def ndimension(x):
    return len(x.shape)


def is_same_shape(x, y):
    """True when x and y have the same shape."""
    arguments.tensor("is_same_shape", "y", y)
    return list(x.shape) == list(y.shape)


def is_dense(x):
    return True


def _false(x):
    return False


is_sparse = is_sparse_coo = is_sparse_csr = is_selected_rows = is_dist = _false


def __nonzero__(x):
    return bool(x.item())


def __long__(x):
    return int(x.item())


def __complex__(x):
    return complex(x.item())


def softmax(x, dim=None, dtype=None):
    """softmax of x along ``dim`` (torch's choice when None: dim 0 for 0-, 1- and 3-D
    tensors, else 1), computed in ``dtype`` when given."""
    if dtype is not None:
        x = cast(x, dtype)
    rank = len(x.shape)
    if dim is None:
        dim = 0 if rank in (0, 1, 3) else 1
    dim = arguments.axis("Tensor.softmax", dim, max(rank, 1), scalar=True)
    return _C_ops.softmax(x, axis=dim)

