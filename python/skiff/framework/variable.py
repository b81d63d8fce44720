"""Static Variables: names in a program's block with a declared dtype and shape (-1
for dims known only at run time). They take the same operators and methods as
skiff.Tensor; those call skiff's functions, which in static mode append ops."""
from .. import _C
from . import dtype as dt
from .program_text import value_text
from .source import user_source
from .trainable import Trainable

__all__ = ["Variable", "Parameter"]


def _at():
    """'file:line: ' of the user code building the program ('' when none)."""
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

    # Paddle's Variable.is_parameter: True for the parameters create_parameter makes.
    is_parameter = False

    def cpu(self):
        """The variable itself (skiff's programs run on the CPU)."""
        return self

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

    def __repr__(self):
        return value_text(self)

    __str__ = __repr__

    def _copy_to(self, program):
        v = type(self).__new__(type(self))
        v.__dict__.update(self.__dict__)
        v.block = type(self.block)(program, self.block.idx)
        return v


class Parameter(Trainable, Variable):
    """A trainable persistable variable made by create_parameter in static mode, with
    the attributes optimizers read (trainable, optimize_attr, regularizer, need_clip)."""

    is_parameter = True

    def __init__(self, block, name, trainable=True, optimize_attr=None, regularizer=None,
                 need_clip=True, do_model_average=True):
        super().__init__(block, name)
        self._init_training(trainable, optimize_attr, regularizer, need_clip, do_model_average)
