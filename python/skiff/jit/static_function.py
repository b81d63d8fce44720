"""skiff.jit.to_static: a function (or a Layer's forward) that, called with Tensors,
runs as a program. The converted function is traced in static mode once per input
signature (shapes, dtypes, Python arguments, train/eval); the program runs through
the run_program op, so outputs are eager Tensors and gradients reach the inputs and
the layers' parameters through eager backward. A function whose source cannot be found
(code run by exec or typed at a prompt) is traced as written, and runs eagerly for the
inputs where that tracing fails (it read a Tensor's value), unless full_graph is asked."""
import functools
import inspect
import types
import weakref

from .. import _C
from ..framework.mode import mode
from ..framework.source import warn_user
from .converter import SourceUnavailable, convert_function, converted_source
from .program_cache import ConcreteProgram, signature_key, specs_compatible

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
        self._recent = None  # the program of the last call
        self._fast = {}
        self._bound = weakref.WeakKeyDictionary()
        self._warned = False  # about tracing it as written
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
        """The converted Python function (bound to the instance for methods); without
        its source and full_graph, the function as written."""
        fn = self._convert()
        return types.MethodType(fn, self._instance) if self._instance is not None else fn

    def _convert(self):
        try:
            return convert_function(self._function)
        except SourceUnavailable as e:
            if self._options.get("full_graph", False):
                raise SourceUnavailable(f"{e}; with full_graph=False it is traced as "
                                        "written") from None
            if not self._warned:
                self._warned = True
                warn_user(f"to_static: the source of {self._function.__qualname__} is not "
                          "available (code run by exec or typed at a prompt), so it is traced "
                          "as written: Python side effects in it (print) happen while "
                          "tracing, and inputs where tracing reads a Tensor's value (an `if` "
                          "on a Tensor) run eagerly")
            return self._function

    def _as_written(self):
        """Whether calls trace the function as written (no source, no full_graph)."""
        return self._convert() is self._function

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
                self._recent = program
                return program.call(list(args))
        program = self._program_for(args, kwargs)
        if fast is not None:
            self._fast[fast] = program
        self._recent = program
        return program.run(args, kwargs)

    def _program_for(self, args=(), kwargs=None, input_spec=None):
        """The traced program for these arguments (or InputSpecs), built on first use; for a
        function traced as written whose tracing failed, an EagerCall."""
        kwargs = kwargs or {}
        spec = input_spec if input_spec is not None else self._input_spec
        as_written = self._as_written()
        if as_written and input_spec is None:
            spec = None  # traced for the Tensors' own shapes: no -1 for Python to read
        key = signature_key(args, kwargs, spec, self._instance)
        program = self._programs.get(key)
        if program is None:
            try:
                program = ConcreteProgram.trace(self, args, kwargs, spec)
            except Exception as e:  # noqa: BLE001 - eager code gives the answer (or the error)
                if not as_written:
                    raise
                program = EagerCall(self, e)
            self._programs[key] = program
        return program

    @property
    def concrete_program(self):
        """The program of to_static's input_spec, else the one the last call ran."""
        return self.concrete_program_specify_input_spec()

    def concrete_program_specify_input_spec(self, input_spec=None, with_hook=False,
                                            is_prim_infer=False):
        """The program traced for ``input_spec`` (InputSpecs or example Tensors); to_static's
        input_spec, when given, wins (a conflicting ``input_spec`` is a ValueError); with
        neither, the program the last call ran. It becomes the recent program."""
        spec = input_spec
        if self._input_spec is not None:
            if input_spec is not None and not specs_compatible(input_spec, self._input_spec):
                raise ValueError(f"the input_spec {list(input_spec)} conflicts with the "
                                 f"input_spec {self._input_spec} given to to_static")
            spec = self._input_spec
        if spec is not None:
            self._recent = self._program_for(input_spec=list(spec))
        if isinstance(self._recent, EagerCall):
            raise self._recent.no_program()
        if self._recent is None:
            raise ValueError(f"{self._function.__qualname__} has no traced program yet: give "
                             "to_static (or jit.save) an input_spec, or call it with Tensors "
                             "first")
        return self._recent

    def get_concrete_program(self, *args, **kwargs):
        program = self._program_for(args, kwargs)
        return program, program.main_program

    @property
    def main_program(self):
        """The main program of ``concrete_program``."""
        return self.concrete_program.main_program

    @property
    def inputs(self):
        """The input variables of ``concrete_program``, flattened."""
        return self.concrete_program.flat_inputs()

    @property
    def outputs(self):
        """The output variables of ``concrete_program``, flattened."""
        return self.concrete_program.flat_outputs()

    @property
    def code(self):
        """The source text of the converted function (what the programs are traced from)."""
        return converted_source(self._function)

    def rollback(self):
        """Runs the function eagerly again: a Layer's forward converted by to_static is
        restored on the instance. Returns the eager function (bound for methods)."""
        if self._instance is None:
            return self._function
        name = self._function.__name__
        if self._instance.__dict__.get(name) is self:
            del self._instance.__dict__[name]
        if isinstance(getattr(type(self._instance), name, None), StaticFunction):
            self._instance.__dict__[name] = self.dygraph_function
        return getattr(self._instance, name)

    @property
    def program_cache(self):
        return self._programs

    def __repr__(self):
        return f"<skiff.jit.StaticFunction of {self._function.__qualname__}>"


class EagerCall:
    """Stands for a program in the cache where a function traced as written could not be
    traced (it read a Tensor's value): calls with those inputs run it eagerly."""

    def __init__(self, static_fn, error):
        self.static_fn = static_fn
        self.error = f"{type(error).__name__}: {error}"
        warn_user(f"to_static: {static_fn._function.__qualname__} runs eagerly for these "
                  f"inputs: tracing it as written failed ({self.error})")

    def run(self, args, kwargs):
        return self.static_fn.dygraph_function(*args, **kwargs)

    def call(self, tensors):
        return self.static_fn.dygraph_function(*tensors)

    def no_program(self):
        return _C.Error(f"{self.static_fn._function.__qualname__} has no program: its source "
                        f"is not available to convert (define it in a file) and tracing it as "
                        f"written failed ({self.error})")


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
              full_graph=False, **kwargs):
    """Converts ``function`` (a Python function, a method or a Layer) so that calls run a
    program built from it; usable as ``@to_static`` or ``@to_static(input_spec=[...])``.
    For a Layer, its forward is replaced and the Layer returned. The source is converted
    whenever it can be found; without it, ``full_graph=True`` is an error and the default
    traces the function as written (running it eagerly where that fails)."""
    options = {"full_graph": bool(full_graph)}

    def decorate(fn):
        if _is_layer(fn):
            current = fn.__dict__.get("forward")
            base = current if isinstance(current, StaticFunction) else type(fn).forward
            static = StaticFunction(base, input_spec, fn, **options)
            fn.__dict__["forward"] = static
            return fn
        if isinstance(fn, StaticFunction):
            return fn if input_spec is None else \
                StaticFunction(fn, input_spec, fn._instance, **options)
        return StaticFunction(fn, input_spec, **options)

    if function is None:
        return decorate
    return decorate(function)


def _is_layer(obj):
    return hasattr(obj, "_sub_layers") and hasattr(type(obj), "forward") and \
        not inspect.isclass(obj)


__all__ = ["to_static", "StaticFunction", "enable_to_static"]
