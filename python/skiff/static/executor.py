"""Running programs: Executor(place).run(program, feed=, fetch_list=), the global
scope that holds parameters between runs, scope_guard and CPUPlace. Feeds and fetched
arrays share memory with the program's tensors where layouts allow; each (program
revision, fetch list) is prepared once, so repeated runs cost only the kernels."""

import numpy as np

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt
from ..framework.program import Program, default_main_program
from ..framework.scope import Scope, global_scope, scope_guard
from ..framework.source import user_source
from ..framework.variable import Variable

__all__ = ["Executor", "global_scope", "scope_guard", "Scope", "CPUPlace"]


class CPUPlace:
    """The CPU (skiff's only device)."""

    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")


def _feed_value(program, name, value):
    """``value`` as an array (or Tensor) fit for variable ``name``; errors name the
    variable, where it was declared and the run call."""
    d = program.desc.var(0, name)
    where = program._data_sources.get(name)
    label = f"feed '{name}'" + (f" (declared at {where})" if where else "")
    if d is None:
        declared = sorted(program._data_sources) or program.desc.var_names(0)
        raise _C.Error(f"feed '{name}' (Executor.run at {user_source()}): the program "
                       f"declares no such variable (its data: {', '.join(declared)})")
    if isinstance(value, Tensor):
        got_dtype, got_shape = value._dtype_name, list(value.shape)
    else:
        if isinstance(value, np.ndarray):
            got_dtype = dt.dtype_name(value.dtype)
        else:
            value = np.asarray(value, dtype=dt.numpy_dtype(d.dtype))
            got_dtype = d.dtype
        got_shape = list(value.shape)
    want = list(d.shape)
    if got_dtype != d.dtype or len(got_shape) != len(want) or any(
            w >= 0 and w != g for w, g in zip(want, got_shape)):
        raise _C.Error(f"{label}: the program declares {d.dtype}{want}, got "
                       f"{got_dtype}{got_shape} (Executor.run at {user_source()})")
    if isinstance(value, np.ndarray) and not value.flags.c_contiguous:
        value = np.ascontiguousarray(value)
    return value


class Executor:
    """Runs programs on the CPU, keeping prepared programs for reuse."""

    def __init__(self, place=None):
        self.place = place or CPUPlace()
        self._exe = _C.Executor()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=True,
            use_prune=False):
        """Feeds ``feed`` {name: array/Tensor}, runs ``program`` (default: the main
        program) in ``scope`` (default: the global scope) and returns the values of
        ``fetch_list`` (Variables or names): numpy arrays, or Tensors with
        ``return_numpy=False``."""
        program = program if program is not None else default_main_program()
        program = getattr(program, "_program", program)  # CompiledProgram
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run wants a skiff.static.Program, got "
                            f"{type(program).__name__}")
        scope = scope if scope is not None else global_scope()
        feeds = {name: _feed_value(program, name, v) for name, v in (feed or {}).items()}
        fetch_list = fetch_list if isinstance(fetch_list, (list, tuple)) else (
            [] if fetch_list is None else [fetch_list])
        names = [f.name if isinstance(f, Variable) else str(f) for f in fetch_list]
        cscope = scope._scope
        if program.lr_scheduler is not None:  # its step counter, or its rate
            cscope.set(*program.lr_scheduler._program_input())
        for name, t in program._captured.items():
            cscope.set(name, t)
        values = self._exe.run(program.desc, cscope, feeds, names)
        for name, t in program._captured.items():
            now = cscope.get(name)
            if now is not None and not now._share_memory_with(t):
                t._set_value(now)
        if not return_numpy:
            return values
        # A persistable variable's memory is updated by later runs: it is copied; other
        # results are new buffers of this run, handed over as they are.
        persistable = [program.desc.var(0, n) for n in names]
        return [v.numpy(copy=d is not None and d.persistable) for v, d in zip(values, persistable)]

    def close(self):
        """Drops the prepared programs."""
        self._exe = _C.Executor()
