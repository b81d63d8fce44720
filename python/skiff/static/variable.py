"""Static Variables: names in a program's block with a declared dtype and shape (-1
for dims known only at run time). They take the same operators and methods as
skiff.Tensor; those call skiff's functions, which in static mode append ops."""
import types

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt

__all__ = ["Variable", "Parameter"]


def _at():
    """'file:line: ' of the user code building the program ('' when none)."""
    from .source import user_source
    where = user_source()
    return f"{where}: " if where else ""


class Variable:
    """A variable of a static program; its value exists only while an Executor runs."""

    def __init__(self, block, name):
        self.block = block
        self.name = name

    # -- the declaration --
    @property
    def desc(self):
        d = self.block.program.desc.var(self.block.idx, self.name)
        if d is None:
            raise _C.Error(f"variable '{self.name}' is no longer declared in block "
                           f"{self.block.idx}")
        return d

    @property
    def program(self):
        return self.block.program

    @property
    def shape(self):
        return list(self.desc.shape)

    @property
    def _dtype_name(self):
        return self.desc.dtype

    @property
    def dtype(self):
        return dt.to_dtype(self.desc.dtype)

    @property
    def type(self):
        return self.desc.kind

    lod_level = 0

    @property
    def persistable(self):
        return self.desc.persistable

    @persistable.setter
    def persistable(self, value):
        self.block.program.desc.set_var(self.block.idx, self.name, persistable=bool(value))

    @property
    def stop_gradient(self):
        return self.desc.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self.block.program.desc.set_var(self.block.idx, self.name, stop_gradient=bool(value))

    @property
    def ndim(self):
        return len(self.desc.shape)

    def dim(self):
        return self.ndim

    @property
    def size(self):
        """The element count, or -1 while a dim is unknown."""
        n = 1
        for s in self.desc.shape:
            if s < 0:
                return -1
            n *= s
        return n

    def numel(self):
        return self.size

    @property
    def place(self):
        return "cpu"

    # -- what a static value cannot do --
    def __bool__(self):
        raise _C.Error(
            f"{_at()}the truth value of static variable '{self.name}' is known only when the "
            f"program runs; use skiff.static.nn.cond / while_loop for control flow on it (in "
            f"to_static code: `if` / `while` on it convert; `assert` and `and`/`or` outside "
            f"a condition do not)")

    def _no_value(self, *args, **kwargs):
        raise _C.Error(f"{_at()}static variable '{self.name}' has no value while the program "
                       f"is built; fetch it with Executor.run(fetch_list=[...]) (in to_static "
                       f"code: a shape read from an unknown dim, x.shape[0], is such a "
                       f"variable; pass shapes with -1 for it where the op takes one)")

    numpy = item = tolist = __array__ = __float__ = __int__ = __index__ = _no_value
    backward = _no_value

    def __len__(self):
        shape = self.desc.shape
        if not shape or shape[0] < 0:
            raise _C.Error(f"len() of static variable '{self.name}' with shape {shape}: its "
                           f"first dim is not known when the program is built")
        return shape[0]

    __hash__ = object.__hash__

    def detach(self):
        """A copy that no gradient flows through."""
        from ..framework.core import apply
        out = apply("assign", self)
        out.stop_gradient = True
        return out

    def __repr__(self):
        d = self.desc
        flags = "".join(f", {f}=True" for f in ("persistable", "stop_gradient")
                        if getattr(d, f))
        return f"var {self.name} : {d.kind}.shape{tuple(d.shape)}.dtype({d.dtype}){flags}"

    __str__ = __repr__

    def _copy_to(self, program):
        v = type(self).__new__(type(self))
        v.__dict__.update(self.__dict__)
        from .program import Block
        v.block = Block(program, self.block.idx)
        return v


class Parameter(Variable):
    """A trainable persistable variable made by create_parameter in static mode, with
    the attributes optimizers read (trainable, optimize_attr, regularizer, need_clip)."""

    _is_parameter = True

    def __init__(self, block, name, trainable=True, optimize_attr=None, regularizer=None,
                 need_clip=True, do_model_average=True):
        super().__init__(block, name)
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.do_model_average = do_model_average
        self.is_distributed = False
        self.trainable = trainable

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not value


# Tensor members that make sense only for values; Variable defines its own forms.
_VALUE_ONLY = {"backward", "clear_grad", "clear_gradient", "item", "tolist", "numpy", "grad",
               "__repr__", "__str__", "__array__", "__float__", "__int__", "__bool__",
               "__index__", "__len__", "__iter__", "__dlpack__", "__dlpack_device__", "detach",
               "__hash__", "is_leaf", "retain_grads", "set_value", "place", "register_hook"}

# Operators every Variable has, from skiff's functions (Tensor may hold C slots).
_OPERATORS = {
    "__add__": ("add", False), "__radd__": ("add", True),
    "__sub__": ("subtract", False), "__rsub__": ("subtract", True),
    "__mul__": ("multiply", False), "__rmul__": ("multiply", True),
    "__truediv__": ("divide", False), "__rtruediv__": ("divide", True),
    "__floordiv__": ("floor_divide", False), "__rfloordiv__": ("floor_divide", True),
    "__mod__": ("remainder", False), "__rmod__": ("remainder", True),
    "__pow__": ("pow", False), "__rpow__": ("pow", True),
    "__matmul__": ("matmul", False), "__rmatmul__": ("matmul", True),
}


def _operator(fn, reflected):
    if reflected:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def install_tensor_methods():
    """Gives Variable every Python-level method and property of skiff.Tensor (the
    functions dispatch on mode, so they append ops here)."""
    import skiff
    for name, value in Tensor.__dict__.items():
        if name in _VALUE_ONLY or name in Variable.__dict__:
            continue
        python_level = isinstance(value, types.FunctionType) or (
            isinstance(value, property) and isinstance(value.fget, types.FunctionType))
        if python_level:
            setattr(Variable, name, value)
    for name, (fn_name, reflected) in _OPERATORS.items():
        fn = getattr(skiff, fn_name, None)
        if fn is not None and not isinstance(Tensor.__dict__.get(name), types.FunctionType):
            setattr(Variable, name, _operator(fn, reflected))
    if not isinstance(Tensor.__dict__.get("__neg__"), types.FunctionType):
        Variable.__neg__ = lambda self: skiff.scale(self, -1.0)
