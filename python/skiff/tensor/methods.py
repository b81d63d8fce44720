"""skiff.Tensor's Python face: dtype, operators, indexing, numpy/DLPack interop,
backward and the Paddle-style methods (x.sum(), x.reshape(...), ...), all over skiff's
functions."""
import types

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from ..framework import arguments, dtype as dt
from ..framework.tensor_params import checked
from ..framework.variable import Variable
from . import (attributes, axes, complex_math, composite, conversions, creation, indexing,
               inplace, joining,
               linalg, logic, manipulation, math, numeric, ordering, printing, products, random,
               reduction, scattering, search, special, stat, storage, grad_hooks)


def _dtype(self):
    return dt.to_dtype(self._dtype_name)


def _backward(self, grad_tensor=None, retain_graph=False):
    """Accumulates the gradient of this tensor into every leaf that wants one."""
    if grad_tensor is not None and not isinstance(grad_tensor, Tensor):
        raise arguments.ArgumentTypeError(f"Tensor.backward: grad_tensor must be a Tensor or "
                                          f"None, got {type(grad_tensor).__name__}")
    retain_graph = arguments.flag("Tensor.backward", "retain_graph", retain_graph)
    _C.backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def _clear_grad(self, set_to_zero=True):
    """Zeroes the gradient in place (Paddle's default), or drops it with
    set_to_zero=False."""
    if set_to_zero and self.grad is not None and self.grad._kind == "dense":
        self.grad._zero_()
    else:
        self.grad = None


def _len(self):
    """len(x): the size of x's first dim (a 0-D Tensor has no length, as in torch)."""
    shape = self.shape
    if not shape:
        raise arguments.ArgumentTypeError("len() of a 0-D Tensor")
    return shape[0]


def _binding_method(name, method):
    """The binding's ``method`` of Tensor, a mistake in whose arguments is an
    ArgumentTypeError naming Tensor.<name>, what it takes and what it was given."""
    shown = "Tensor" if name == "__init__" else f"Tensor.{name}"

    def call(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except TypeError as e:
            if "incompatible function arguments" not in str(e):
                raise
            given = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}"
                                                        for k, v in kwargs.items()]
            raise arguments.ArgumentTypeError(f"{shown}: takes {_forms(str(e))}, got "
                                              f"({', '.join(given)})") from None

    call.__name__, call.__qualname__, call.__doc__ = name, f"Tensor.{name}", method.__doc__
    return call


def _forms(message):
    """The argument lists a binding function takes, from its mismatch message: "(),
    (data: object)" (without self and return types)."""
    forms = []
    for line in message.splitlines():
        head, _, rest = line.strip().partition(". ")
        if head.isdigit() and "(" in rest:
            params = rest[rest.index("(") + 1:rest.rindex(")")]
            kept = [p.strip() for p in params.split(",") if p.strip() and p.strip() != "self"]
            forms.append(f"({', '.join(kept)})")
    return " or ".join(forms) or "other arguments"


def _item(self, *args):
    """The value at a flat index, at one index per dim, or (no argument) of a one-entry
    Tensor, as a Python number."""
    if args:
        shape = [int(np.prod(self.shape, dtype=np.int64))] if len(args) == 1 else self.shape
        if len(args) != len(shape):
            raise arguments.ArgumentError(f"Tensor.item: {len(args)} indices for a "
                                          f"{len(self.shape)}-D Tensor")
        args = [_entry_index(a, n) for a, n in zip(args, shape)]
    return self.numpy(copy=False).item(*args)


def _entry_index(i, n):
    """An index ``i`` of Tensor.item into a dim of ``n`` entries, from 0."""
    i = arguments.integer("Tensor.item", "index", i)
    if not -n <= i < n:
        raise arguments.AxisError(f"Tensor.item: index {i} is out of range for {n} entries "
                                  f"(valid: [{-n}, {n - 1}])")
    return i + n if i < 0 else i


def _array(self, dtype=None, copy=None):
    """numpy's __array__ protocol: a copy, unless copy=False asks for the tensor's memory."""
    arr = self.numpy(copy=copy is not False)
    return arr if dtype is None else arr.astype(dtype, copy=False)


def _repr(self):
    grad = "" if self.stop_gradient else ", stop_gradient=False"
    if self._kind == "empty":
        return "Tensor(<no value>)"
    return (f"Tensor(shape={self.shape}, dtype={self._dtype_name}{grad},\n       "
            + printing.values_text(self.numpy(copy=False), "       ") + ")")


def _format(self, spec):
    """format(x, spec): a 0-d Tensor formats as its number ("{:.3f}"); others as str(x)
    with an empty spec only."""
    if not self.shape and self._kind != "empty":
        return format(self.item(), spec)
    if spec:
        raise TypeError(f"unsupported format string {spec!r} passed to a "
                        f"{len(self.shape)}-D Tensor")
    return str(self)


def _set_requires_grad(self, value):
    self.stop_gradient = not arguments.flag("Tensor.requires_grad", "value", value)


def _requires_grad_(self, requires_grad=True):
    """Sets requires_grad (the inverse of stop_gradient); returns the tensor."""
    _set_requires_grad(self, requires_grad)
    return self


def _detach(self):
    """A tensor outside the graph sharing self's memory (a write into one shows in the
    other, as in Paddle)."""
    out = Tensor()
    out._view_of(self)
    return out


def _r(fn):
    def reflected(self, other):
        return fn(other, self)
    reflected.__name__ = "__r" + fn.__name__ + "__"
    return reflected


def _dlpack(self, stream=None, **kwargs):
    return self._dlpack_capsule()


def _iter(self):
    if not self.shape:
        raise TypeError("iteration over a 0-d tensor")
    for i in range(self.shape[0]):
        yield indexing.getitem(self, i)


def _comparison(fn):
    def op(self, other):
        if other is None or isinstance(other, (str, list, tuple, dict)):
            return NotImplemented
        return fn(self, other)
    op.__name__ = fn.__name__
    return op


# Functions whose first argument is the tensor: installed as methods of the same name.
_METHOD_MODULES = (math, complex_math, special, composite, reduction, inplace, manipulation, logic, search, stat, linalg, axes,
                   joining, scattering, numeric, products, ordering)
# Tensor.shape is the property (a list); the rest take lists or shapes, not a tensor.
_SKIP = {"is_tensor", "meshgrid", "shape", "hstack", "vstack", "dstack", "column_stack",
         "row_stack", "broadcast_tensors", "broadcast_shape", "broadcast_shapes", "atleast_1d",
         "atleast_2d", "atleast_3d", "cat", "concatenate", "crop", "cartesian_prod",
         "searchsorted", "get_rng_state", "set_rng_state", "get_cuda_rng_state",
         "set_cuda_rng_state", "log_normal"}  # functions of lists or shapes, or not methods in Paddle


def _install():
    T = Tensor
    for module in _METHOD_MODULES:
        for name in module.__all__:
            if name not in _SKIP:
                setattr(T, name, checked(getattr(module, name)))
    T.dtype = property(_dtype)
    T.ndim = property(lambda self: len(self.shape))
    T.size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    T.T = property(lambda self: manipulation.transpose(self, list(range(self.ndim))[::-1]))
    T.mT = property(lambda self: manipulation.transpose(
        self, list(range(self.ndim - 2)) + [self.ndim - 1, self.ndim - 2]))
    T.place = property(lambda self: "cpu")
    T.backward = _backward
    T.clear_grad = _clear_grad
    T.clear_gradient = _clear_grad
    T.item = _item
    T.__repr__ = _repr
    T.__str__ = _repr
    T.__format__ = _format
    T.__len__ = _len
    for name in ("__init__", "numpy", "retain_grads"):  # the binding's public methods
        setattr(T, name, _binding_method(name, T.__dict__[name]))
    T.__iter__ = _iter
    T.__hash__ = object.__hash__
    T.__array_priority__ = 100  # numpy defers to our reflected operators
    T.__array__ = _array
    T.__float__ = lambda self: float(self.item())
    T.__int__ = lambda self: int(self.item())
    T.__bool__ = lambda self: bool(self.item())
    T.__index__ = lambda self: int(self.item())
    T.__dlpack__ = _dlpack
    T.__dlpack_device__ = lambda self: (1, 0)
    T.__getitem__ = indexing.getitem
    T.__setitem__ = indexing.setitem
    T.detach = _detach
    T.clone = creation.clone
    T.astype = math.cast
    T.dim = lambda self: self.ndim
    T.numel = lambda self: self.size
    T.tril = creation.tril
    T.triu = creation.triu
    T.bernoulli_ = random.bernoulli_
    for name in attributes.METHODS:
        setattr(T, name, getattr(attributes, name))
    for name in conversions.METHODS:
        setattr(T, name, getattr(conversions, name))
    for module in (storage, grad_hooks):
        for name in module.METHODS:
            setattr(T, name, getattr(module, name))
    T.device = property(lambda self: self.place)
    for name, convert in conversions.SHORTCUTS.items():
        setattr(T, name, convert)
    T.strides = property(attributes.stride)
    T.multinomial = random.multinomial
    T.requires_grad = property(lambda self: not self.stop_gradient, _set_requires_grad)
    T.requires_grad_ = _requires_grad_
    T.itemsize = property(attributes.element_size)
    T.layout = property(lambda self: "NCHW")  # Paddle's name for a dense tensor's layout
    T.uniform_ = lambda self, min=0.0, max=1.0, seed=0, name=None: inplace.inplace(
        "assign", self, random.uniform(self.shape, self.dtype, min, max, seed))

    # + - * / and @ are C type slots of Tensor (python/src/tensor_operators.cc),
    # which call math.add/subtract/multiply/divide and linalg.matmul for all but the
    # float tensor-with-tensor case.
    T.__floordiv__ = math.floor_divide
    T.__rfloordiv__ = _r(math.floor_divide)
    T.__mod__ = math.remainder
    T.__rmod__ = _r(math.remainder)
    T.__pow__ = math.pow
    T.__rpow__ = _r(math.pow)
    T.__neg__ = math.neg
    T.__abs__ = math.abs
    T.__eq__ = _comparison(logic.equal)
    T.__ne__ = _comparison(logic.not_equal)
    T.__lt__ = _comparison(logic.less_than)
    T.__le__ = _comparison(logic.less_equal)
    T.__gt__ = _comparison(logic.greater_than)
    T.__ge__ = _comparison(logic.greater_equal)
    T.__and__ = logic.bitwise_and
    T.__rand__ = _r(logic.bitwise_and)
    T.__or__ = logic.bitwise_or
    T.__ror__ = _r(logic.bitwise_or)
    T.__xor__ = logic.bitwise_xor
    T.__rxor__ = _r(logic.bitwise_xor)
    T.__invert__ = logic.bitwise_not
    T.__lshift__ = logic.bitwise_left_shift
    T.__rlshift__ = _r(logic.bitwise_left_shift)
    T.__rshift__ = logic.bitwise_right_shift
    T.__rrshift__ = _r(logic.bitwise_right_shift)


# Tensor members that make sense only for values; Variable defines its own forms.
_VALUE_ONLY = {"backward", "clear_grad", "clear_gradient", "item", "tolist", "numpy", "grad",
               "__repr__", "__str__", "__format__", "__array__", "__float__", "__int__", "__bool__",
               "__index__", "__len__", "__iter__", "__dlpack__", "__dlpack_device__", "detach",
               "__hash__", "is_leaf", "retain_grads", "set_value", "place", "register_hook",
               "__deepcopy__", "__nonzero__", "__long__", "__complex__", "copy_", "detach_",
               "cpu", "value", "gradient", "set_", "resize_", "reconstruct_from_",
               "get_tensor", "_is_shared_buffer_with", "device"}

# Operators that are C slots of Tensor, given to Variable as the functions they call.
_SLOT_OPERATORS = {"__add__": math.add, "__sub__": math.subtract, "__mul__": math.multiply,
                   "__truediv__": math.divide, "__matmul__": linalg.matmul}


def _variable_detach(self):
    """A copy of the static variable that no gradient flows through."""
    out = _C_ops.assign(self)
    out.stop_gradient = True
    return out


def _install_on_variables():
    """Gives static Variables every Python-level method and property of Tensor (the
    functions dispatch on mode, so on a Variable they append ops)."""
    for name, value in Tensor.__dict__.items():
        if name in _VALUE_ONLY or name in Variable.__dict__:
            continue
        if isinstance(value, types.FunctionType) or (
                isinstance(value, property) and isinstance(value.fget, types.FunctionType)):
            setattr(Variable, name, value)
    for name, fn in _SLOT_OPERATORS.items():
        fn = checked(fn)
        setattr(Variable, name, fn)
        setattr(Variable, name.replace("__", "__r", 1), _r(fn))
    Variable.detach = _variable_detach


_install()
_install_on_variables()
