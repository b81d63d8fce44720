"""skiff.jit.to_static: a function (or a Layer's forward) that, called with Tensors,
runs as a program. The converted function is traced in static mode once per input
signature (shapes, dtypes, Python arguments, train/eval); the program runs through
the run_program op, so outputs are eager Tensors and gradients reach the inputs and
the layers' parameters through eager backward."""
import functools
import inspect
import types
import weakref

from .. import _C
from ..framework.mode import mode
from .converter import convert_function
from .program_cache import ConcreteProgram, signature_key

_enabled = [True]


def enable_to_static(enable=True):
    """With False, to_static functions run as written, eagerly (for debugging)."""
    _enabled[0] = bool(enable)


class StaticFunction:
    """The callable to_static returns; for methods, one per instance (``__get__``)."""
    _jst_converted = True  # code being converted calls it as it is

    def __init__(self, function, input_spec=None, instance=None, **options):
        if isinstance(function, StaticFunction):
            function = function._function
        if isinstance(function, types.MethodType):
            instance, function = function.__self__, function.__func__
        if not isinstance(function, types.FunctionType):
            raise TypeError(f"to_static converts Python functions and Layers, got "
                            f"{type(function).__name__}")
        self._function = function
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._instance = instance
        self._options = options
        self._programs = {}
        self._fast = {}
        self._bound = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, function)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, instance, **self._options)
            self._bound[instance] = bound
        return bound

    @property
    def dygraph_function(self):
        fn = self._function
        return types.MethodType(fn, self._instance) if self._instance is not None else fn

    @property
    def input_spec(self):
        return self._input_spec

    def converted(self):
        """The converted Python function (bound to the instance for methods)."""
        fn = convert_function(self._function)
        return types.MethodType(fn, self._instance) if self._instance is not None else fn

    def __call__(self, *args, **kwargs):
        if not _enabled[0]:
            return self.dygraph_function(*args, **kwargs)
        if mode.static:  # inside another traced function: trace inline
            return self.converted()(*args, **kwargs)
        fast = None
        if not kwargs and self._input_spec is None:
            # The common call: Tensors only, traced for their exact shapes.
            fast = _fast_key(args, self._instance)
            program = self._fast.get(fast) if fast is not None else None
            if program is not None:
                return program.call(list(args))
        program = self.concrete_program(args, kwargs)
        if fast is not None:
            self._fast[fast] = program
        return program.run(args, kwargs)

    def concrete_program(self, args=(), kwargs=None, input_spec=None):
        """The traced program for these arguments (or InputSpecs), built on first use."""
        kwargs = kwargs or {}
        spec = input_spec if input_spec is not None else self._input_spec
        key = signature_key(args, kwargs, spec, self._instance)
        program = self._programs.get(key)
        if program is None:
            program = ConcreteProgram.trace(self, args, kwargs, spec)
            self._programs[key] = program
        return program

    def get_concrete_program(self, *args, **kwargs):
        program = self.concrete_program(args, kwargs)
        return program, program.program

    @property
    def program_cache(self):
        return self._programs

    def __repr__(self):
        return f"<skiff.jit.StaticFunction of {self._function.__qualname__}>"


def _fast_key(args, instance):
    """(dtype, shape...) per argument when every argument is a Tensor, else None."""
    key = []
    for a in args:
        if type(a) is not _C.Tensor:
            return None
        key.append((a._dtype_name, *a.shape))
    key.append(getattr(instance, "training", None))
    return tuple(key)


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph=True, **kwargs):
    """Converts ``function`` (a Python function, a method or a Layer) so that calls run a
    program built from it; usable as ``@to_static`` or ``@to_static(input_spec=[...])``.
    For a Layer, its forward is replaced and the Layer returned."""
    def decorate(fn):
        if _is_layer(fn):
            current = fn.__dict__.get("forward")
            base = current if isinstance(current, StaticFunction) else type(fn).forward
            static = StaticFunction(base, input_spec, fn)
            fn.__dict__["forward"] = static
            return fn
        if isinstance(fn, StaticFunction):
            return fn if input_spec is None else StaticFunction(fn, input_spec, fn._instance)
        return StaticFunction(fn, input_spec)

    if function is None:
        return decorate
    return decorate(function)


def _is_layer(obj):
    return hasattr(obj, "_sub_layers") and hasattr(type(obj), "forward") and \
        not inspect.isclass(obj)


__all__ = ["to_static", "StaticFunction", "enable_to_static"]
