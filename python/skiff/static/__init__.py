"""Static programs (Paddle's paddle.static): after skiff.enable_static(), skiff's
functions append ops to the default main program instead of running them; an
Executor runs programs in the C++ interpreter.

    skiff.enable_static()
    main, startup = skiff.static.Program(), skiff.static.Program()
    with skiff.static.program_guard(main, startup):
        x = skiff.static.data("x", [None, 4], "float32")
        loss = skiff.mean(skiff.static.nn.fc(x, 3, activation="relu"))
        skiff.optimizer.SGD(0.1).minimize(loss)
    exe = skiff.static.Executor(skiff.CPUPlace())
    exe.run(startup)
    loss_value, = exe.run(main, feed={"x": batch}, fetch_list=[loss])
"""
from . import nn
from ..framework.backward import append_backward, gradients
from ..framework.building import create_global_var, data
from .debug import Print
from .executor import CPUPlace, Executor, Scope, global_scope, scope_guard
from .flags import get_flags, set_flags
from .input_spec import InputSpec
from .io import deserialize_program, load, load_inference_model, normalize_program, save, \
    save_inference_model, serialize_program
from ..framework.program import Block, Operator, Program, default_main_program, \
    default_startup_program, program_guard
from ..framework.variable import Parameter, Variable
from ..framework.name_scope import name_scope
from .parameters import create_parameter
from .places import cuda_places, device_guard, xpu_places
from .metrics import accuracy, auc
from .io_state import deserialize_persistables, load_from_file, load_program_state, \
    save_to_file, serialize_persistables, set_program_state
from .ema import ExponentialMovingAverage

__all__ = ["Program", "Block", "Operator", "Variable", "Parameter", "program_guard",
           "default_main_program", "default_startup_program", "data", "InputSpec",
           "Executor", "global_scope", "scope_guard", "Scope", "CPUPlace", "append_backward",
           "gradients", "nn", "Print", "save_inference_model", "load_inference_model",
           "save", "load", "serialize_program", "deserialize_program", "normalize_program",
           "create_global_var", "create_parameter", "CompiledProgram", "cpu_places",
           "name_scope", "device_guard", "cuda_places", "xpu_places", "accuracy", "auc",
           "save_to_file", "load_from_file", "serialize_persistables",
           "deserialize_persistables", "load_program_state", "set_program_state",
           "ExponentialMovingAverage"]


class CompiledProgram:
    """A program prepared for running (Executor.run accepts it like the program)."""

    def __init__(self, program_or_graph, build_strategy=None):
        self._program = program_or_graph

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        return self


def cpu_places(device_count=None):
    return [CPUPlace()] * (device_count or 1)

