"""skiff.jit.save / load: a Layer's forward traced with InputSpecs, pruned for
inference and written as path.skmodel (the program with its feed and fetch names) and
path.skparams (its parameters); load gives a TranslatedLayer that runs the program
through the interpreter (gradients included, so it can be fine-tuned)."""
import os

from .. import _C
from ..framework.core import eager_op
from ..framework.param import Parameter
from .static_function import StaticFunction
from .static_control import is_static_var
from .. import static
from ..nn import Layer
from ..static import Program
import warnings

Error = _C.Error

_FLOATS = ("float32", "float64", "bfloat16")


def _static_forward(layer):
    if isinstance(layer, StaticFunction):
        return layer
    forward = layer.__dict__.get("forward")
    if isinstance(forward, StaticFunction):
        return forward
    forward = type(layer).forward
    if isinstance(forward, StaticFunction):
        return forward.__get__(layer)
    return StaticFunction(forward, None, layer)


def save(layer, path, input_spec=None, **configs):
    """Writes ``layer``'s forward to path.skmodel and its parameters to path.skparams,
    traced with to_static's input_spec, else ``input_spec`` (InputSpecs or example
    Tensors), else as the last call ran it (a ValueError when it has not run)."""
    static_fn = _static_forward(layer)
    concrete = static_fn.concrete_program_specify_input_spec(input_spec)
    program = concrete.main_program
    block = program.global_block()
    feeds = [block.var(n) for n in concrete.input_names]
    fetches = [leaf for leaf in concrete.out_leaves if is_static_var(leaf)]
    if not fetches:
        raise Error("jit.save: the forward returns no Tensor computed from its inputs")
    pruned = static.io.normalize_program(program, feeds, fetches)
    _to_int8(pruned)
    scope = _C.Scope()
    for name, tensor in zip(concrete.captured_names, concrete.captured):
        if pruned.desc.var(0, name) is not None:
            scope.set(name, tensor)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    _C.save_program(pruned.desc, path + ".skmodel")
    _C.save_persistables(path + ".skparams", pruned.desc, scope)


def _to_int8(program):
    """A program of a converted (skiff.quantization) model computes in int8 where its
    pattern allows (passes/int8.h); the ops left float are reported as a warning."""
    if not any(op.type == "fake_quantize_dequantize" for op in program.global_block().ops):
        return
    report = _C.convert_to_int8(program.desc)
    if report["left_float"]:
        warnings.warn("jit.save: " + str(len(report["left_float"])) + " quantized op(s) stay "
                      "float32: " + "; ".join(report["left_float"]), stacklevel=3)


def _layer_base():
    return Layer


class TranslatedLayer(_layer_base()):
    """A Layer running a saved program: inputs in the order of its feeds, outputs one
    Tensor (or a list for several fetch targets); parameters are trainable Tensors."""

    def __init__(self, desc, scope):
        super().__init__()
        self._desc = desc
        self._feeds = list(desc.feed_names)
        self._fetches = list(desc.fetch_names)
        self._persistables = []
        for name in desc.var_names(0):
            d = desc.var(0, name)
            if not d.persistable or name in self._feeds:
                continue
            value = scope.get(name)
            if value is None:
                raise Error(f"jit.load: the parameter file has no value for '{name}'")
            key = name.replace(".", "_")
            if d.stop_gradient:
                value.name = name
                value.persistable = True
                self.register_buffer(key, value)
            else:
                self.add_parameter(key, Parameter(value, name))
            self._persistables.append(getattr(self, key))
        self._function = _C.register_program_function(
            desc, self._feeds + [t.name for t in self._persistables], self._fetches)
        self._ops = {}

    def __del__(self):
        function = self.__dict__.get("_function")
        if function is not None:
            _C.release_program_function(function)

    def forward(self, *inputs):
        if len(inputs) != len(self._feeds):
            raise Error(f"this TranslatedLayer takes {len(self._feeds)} inputs "
                        f"({', '.join(self._feeds)}), got {len(inputs)}")
        tensors = list(inputs) + self._persistables
        grad = _C.is_grad_enabled()
        mask = tuple(int(grad and not t.stop_gradient and t._dtype_name in _FLOATS)
                     for t in tensors)
        if not any(mask):
            mask = ()
        op = self._ops.get(mask)
        if op is None:
            op = self._ops[mask] = eager_op(
                "run_program", {"function": self._function, "wants_grad": list(mask)},
                [len(self._fetches), 1])
        outs, _ = op(tensors)
        return outs[0] if len(outs) == 1 else list(outs)

    def program(self):
        """The loaded program (skiff.static.Program)."""
        return Program(self._desc.clone())


def load(path, **configs):
    """Reads path.skmodel and path.skparams (written by jit.save or
    static.save_inference_model) into a TranslatedLayer."""
    desc = _C.load_program(path + ".skmodel")
    _C.verify_program(desc)
    scope = _C.Scope()
    _C.load_persistables(path + ".skparams", desc, scope)
    return TranslatedLayer(desc, scope)
