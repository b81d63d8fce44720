"""Parameters: ``skiff.create_parameter``, ``skiff.ParamAttr`` and the Parameter tensor
class (a trainable, persistable Tensor with a unique Paddle-style name such as
"linear_0.w_0"), plus the unique-name generator that names layers and parameters."""
import collections
import contextlib
import re

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from .lazy_init import LazyGuard
from . import arguments, dtype as dt
from . import initializer
from .grad_mode import no_grad
from .mode import mode
from .program import default_main_program
from .trainable import Trainable

__all__ = ["Parameter", "ParamAttr", "create_parameter", "unique_name", "is_parameter"]


class _UniqueNames:
    """Names ``key_0``, ``key_1``, ... counted per key (Paddle's unique_name)."""

    def __init__(self):
        self.counts = collections.defaultdict(int)

    def generate(self, key):
        n = self.counts[key]
        self.counts[key] = n + 1
        return f"{key}_{n}"

    @contextlib.contextmanager
    def guard(self, new_generator=None):
        """Within it names count from zero again (restored afterwards)."""
        saved = self.counts
        self.counts = collections.defaultdict(int)
        try:
            yield
        finally:
            self.counts = saved


unique_name = _UniqueNames()


def snake_case(name):
    """``Conv2DTranspose`` -> ``conv2d_transpose``, ``ReLU`` -> ``re_lu`` (as Paddle)."""
    s = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()


class ParamAttr:
    """How a parameter is made: its name, initializer, learning-rate factor, regularizer,
    whether it trains and whether gradient clipping applies to it."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def _to_attr(arg):
        """A ParamAttr from None, a ParamAttr, a name, an initializer, or False (which
        stays False: no parameter)."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if hasattr(arg, "_value"):
            return ParamAttr(initializer=arg)
        if arg is True:
            return ParamAttr()
        raise TypeError(f"a parameter attribute must be a ParamAttr, a name, an initializer, "
                        f"None or False, not {type(arg).__name__}")

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")


class Parameter(Trainable, Tensor):
    """A Tensor that a Layer trains: stop_gradient False (unless not trainable),
    persistable, with ``optimize_attr`` {'learning_rate': factor}, ``regularizer`` and
    ``need_clip`` read by the optimizers."""

    def __init__(self, value=None, name=None, trainable=True, optimize_attr=None,
                 regularizer=None, need_clip=True, do_model_average=True):
        super().__init__()
        if isinstance(value, np.ndarray):
            value = _C.tensor_from_array(np.ascontiguousarray(value), True, "Parameter")
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"Parameter: value must be a Tensor or a numpy array, got "
                            f"{type(value).__name__}")
        if value is not None:
            self._set_value(value)
        self.name = name or unique_name.generate("parameter")
        self.persistable = True
        self._init_training(trainable, optimize_attr, regularizer, need_clip, do_model_average)

    def set_value(self, value):
        """Copies ``value`` (a Tensor or array of this shape) into the parameter."""
        assign_value(self, value, self.name)

    def initialize(self):
        """Runs the initializer of a parameter made under LazyGuard (once); a parameter
        made outside one is initialized already."""
        pending = getattr(self, "_lazy_init", None)
        if pending is None:
            return
        init, shape, dtype = pending
        with no_grad():
            self._set_value(init._value(shape, dtype))
        self._lazy_init = None

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        copy = Parameter(_copy_of(self), self.name, self.trainable, dict(self.optimize_attr),
                         self.regularizer, self.need_clip, self.do_model_average)
        memo[id(self)] = copy
        return copy


def _copy_of(t):
    with no_grad():
        return _C_ops.assign(t)


def is_parameter(v):
    """True for a Parameter, or a static program variable made by create_parameter."""
    return isinstance(v, Parameter) or getattr(v, "_is_parameter", False)


def assign_value(dst, value, what):
    """Copies ``value`` (Tensor, numpy array or nested lists) into ``dst``'s memory after
    checking the shape; the dtype is converted to ``dst``'s."""
    if not isinstance(dst, Tensor):
        setter = getattr(dst, "set_value", None)
        if setter is None:
            raise _C.Error(f"cannot set the value of {what}: it is not an eager Tensor")
        setter(value)
        return
    if not isinstance(value, Tensor):
        arr = np.asarray(value, dtype=dt.numpy_dtype(dst._dtype_name))
        value = _C.tensor_from_array(np.ascontiguousarray(arr), True)
    if list(value.shape) != list(dst.shape):
        raise _C.Error(f"{what}: the value has shape {list(value.shape)} but the tensor has "
                       f"shape {list(dst.shape)}")
    if value._dtype_name != dst._dtype_name:
        with no_grad():
            value = _C_ops.cast(value, out_dtype=dst._dtype_name)
    dst._copy_value_from(value)


def _initializer(attr, is_bias, default_initializer):
    """ParamAttr's initializer, else the global one, else the layer's default, else
    XavierUniform for a weight and Constant(0) for a bias."""
    return (attr.initializer or initializer.global_initializer(is_bias) or default_initializer
            or (initializer.Constant(0.0) if is_bias else initializer.XavierUniform()))


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A new Parameter of ``shape`` and ``dtype`` initialised by ``attr.initializer``,
    else the global initializer, else ``default_initializer``, else XavierUniform
    (Constant(0) for a bias). In static
    mode: a persistable variable of the main program, initialised by the startup
    program."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter: attr=False asks for no parameter")
    shape = arguments.integers("create_parameter", "shape", shape)
    for s in shape:
        if s < 0:
            raise _C.Error(f"create_parameter: every dim must be known and >= 0, got {shape}")
    dtype = arguments.dtype("create_parameter", dt.get_default_dtype() if dtype is None
                            else dtype)
    init = _initializer(attr, is_bias, default_initializer)
    if name is None:
        name = attr.name
    if name is None:
        name = unique_name.generate(unique_name.generate("create_parameter") +
                                    (".b" if is_bias else ".w"))
    if mode.static:
        var = default_main_program().global_block().create_parameter(
            shape, dtype, name, init, attr.trainable, {"learning_rate": attr.learning_rate},
            attr.regularizer, attr.need_clip)
        _set_attrs(var, attr)
        return var
    if LazyGuard.active:  # zeros that take no memory until initialize() runs init
        value = _C_ops.fill_constant(shape=[1] * len(shape), value=0.0, dtype=dtype)
        value = _C_ops.expand(value, shape=shape) if shape else value
        value._zero_()
    else:
        with no_grad():
            value = init._value(shape, dtype)
    param = Parameter(value, name, attr.trainable, {"learning_rate": attr.learning_rate},
                      attr.regularizer, attr.need_clip, attr.do_model_average)
    if LazyGuard.active:
        param._lazy_init = (init, list(shape), dtype)
    return param


def _set_attrs(var, attr):
    """Marks a static variable as a parameter with ``attr``'s training settings."""
    for key, value in (("_is_parameter", True), ("trainable", attr.trainable),
                       ("optimize_attr", {"learning_rate": attr.learning_rate}),
                       ("regularizer", attr.regularizer), ("need_clip", attr.need_clip)):
        try:
            setattr(var, key, value)
        except AttributeError:
            pass
