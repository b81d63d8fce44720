"""skiff.Tensor's Python face: dtype, operators, numpy/DLPack interop, backward and
the Paddle-style methods (x.sum(), x.reshape(...), ...), all over skiff's functions."""
import numpy as np

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt
from . import creation, math

_mul = math._mul
_add = math._add


def _dtype(self):
    return dt.to_dtype(self._dtype_name)


def _backward(self, grad_tensor=None, retain_graph=False):
    """Accumulates the gradient of this tensor into every leaf that wants one."""
    _C.backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def _clear_grad(self, set_to_zero=False):
    if set_to_zero and self.grad is not None:
        self.grad = creation.zeros_like(self.grad)
    else:
        self.grad = None


def _item(self, *args):
    arr = self.numpy()
    return arr.item(*args)


def _repr(self):
    grad = "" if self.stop_gradient else ", stop_gradient=False"
    if self._kind == "empty":
        return "Tensor(<no value>)"
    return (f"Tensor(shape={self.shape}, dtype={self._dtype_name}{grad},\n       "
            + np.array2string(self.numpy(), prefix="       ") + ")")


def _detach(self):
    out = Tensor()
    out._set_value(self)
    return out


def _r(fn):
    return lambda self, other: fn(other, self)


def _dlpack(self, stream=None, **kwargs):
    return self._dlpack_capsule()


def _install():
    T = Tensor
    T.dtype = property(_dtype)
    T.ndim = property(lambda self: len(self.shape))
    T.size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    T.T = property(lambda self: self.transpose(list(range(self.ndim))[::-1]))
    T.place = property(lambda self: "cpu")
    T.backward = _backward
    T.clear_grad = _clear_grad
    T.clear_gradient = _clear_grad
    T.item = _item
    T.tolist = lambda self: self.numpy().tolist()
    T.__repr__ = _repr
    T.__str__ = _repr
    T.__len__ = lambda self: self.shape[0]
    T.__array__ = lambda self, dtype=None, copy=None: (
        self.numpy() if dtype is None else self.numpy().astype(dtype))
    T.__float__ = lambda self: float(self.item())
    T.__int__ = lambda self: int(self.item())
    T.__bool__ = lambda self: bool(self.item())
    T.__index__ = lambda self: int(self.item())
    T.__dlpack__ = _dlpack
    T.__dlpack_device__ = lambda self: (1, 0)
    T.detach = _detach
    T.clone = creation.clone
    T.astype = math.cast
    T.cast = math.cast
    T.dim = lambda self: self.ndim
    T.numel = lambda self: self.size

    T.__add__ = math.add
    T.__radd__ = _r(math.add)
    T.__sub__ = math.subtract
    T.__rsub__ = _r(math.subtract)
    T.__mul__ = math.multiply
    T.__rmul__ = _r(math.multiply)
    T.__truediv__ = math.divide
    T.__rtruediv__ = _r(math.divide)
    T.__matmul__ = math.matmul
    T.__rmatmul__ = _r(math.matmul)
    T.__pow__ = math.pow
    T.__neg__ = math.neg
    T.__abs__ = math.abs
    for name in ("add", "subtract", "multiply", "divide", "matmul", "scale", "pow", "exp",
                 "log", "tanh", "sigmoid", "sqrt", "rsqrt", "abs", "square", "sum", "mean",
                 "max", "min", "prod", "maximum", "minimum", "clip", "neg"):
        setattr(T, name, getattr(math, name))


_install()
