"""paddle.static.ExponentialMovingAverage: shadow averages of the parameters updated by
ops that update() appends to the main program; apply() swaps the bias-corrected averages
in (for evaluation) and restore() puts the trained values back."""
import contextlib

from .. import _C
from .. import _C_ops
from ..framework.mode import mode
from ..tensor.creation import full
from ..tensor.math import add, cast, multiply, scale as tensor_scale
from ..framework.building import create_global_var
from ..framework.program import Program, default_main_program, program_guard

__all__ = ["ExponentialMovingAverage"]


def _declare(program, var):
    """``var`` (a persistable of the main program) declared in ``program`` by name."""
    d = program.desc
    if d.var(0, var.name) is None:
        d.add_var(0, var.name, var._dtype_name, [int(s) for s in var.shape], True, True)
    return program._variable(0, var.name)


class ExponentialMovingAverage:
    """ema = decay_t * ema + (1 - decay_t) * param after each training step, with
    decay_t = min(decay, (1 + thres_steps) / (10 + thres_steps)) when ``thres_steps`` (a
    step counter variable) is given; apply() uses ema / (1 - product of decay_t).
    Build it after the network, in static mode: it averages every parameter of the
    default main program."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if not mode.static:
            raise _C.Error("ExponentialMovingAverage: build it in static mode, after the "
                           "network (it averages the main program's parameters)")
        if not 0.0 <= float(decay) <= 1.0:
            raise ValueError(f"ExponentialMovingAverage: decay must be in [0, 1], got {decay}")
        self._decay, self._thres_steps = float(decay), thres_steps
        self._name = name or "ema"
        main = default_main_program()
        self._params = list(main.global_block().all_parameters())
        if not self._params:
            raise _C.Error("ExponentialMovingAverage: the main program has no parameters yet")
        self._averages = [create_global_var(p.shape, 0.0, p._dtype_name, persistable=True,
                                            name=main._unique_name(f"{p.name}.{self._name}"))
                          for p in self._params]
        self._decay_pow = create_global_var([1], 1.0, "float32", persistable=True,
                                            name=main._unique_name(f"{self._name}.decay_pow"))
        self._apply_program, self._restore_program = self._swap_programs()

    def _swap_programs(self):
        apply_p, restore_p = Program(), Program()
        backups = []
        with program_guard(apply_p, Program()):
            scale = tensor_scale(_declare(apply_p, self._decay_pow), -1.0, 1.0)
            for param, avg in zip(self._params, self._averages):
                p, a = _declare(apply_p, param), _declare(apply_p, avg)
                name = apply_p._unique_name(f"{param.name}.{self._name}_backup")
                apply_p.desc.add_var(0, name, param._dtype_name,  # kept for restore()
                                     [int(s) for s in param.shape], True, True)
                backups.append(apply_p._variable(0, name))
                _C_ops.assign(p, out=[backups[-1]])
                corrected = _C_ops.elementwise_div(a, cast(scale, param._dtype_name))
                _C_ops.assign(corrected, out=[p])
        with program_guard(restore_p, Program()):
            for param, backup in zip(self._params, backups):
                _C_ops.assign(_declare(restore_p, backup), out=[_declare(restore_p, param)])
        return apply_p, restore_p

    def update(self):
        """Appends the average updates to the default main program (call it after
        optimizer.minimize)."""
        decay = full([1], self._decay, "float32")
        if self._thres_steps is not None:
            steps = cast(self._thres_steps, "float32")
            ramp = _C_ops.elementwise_div(tensor_scale(steps, 1.0, 1.0),
                                          tensor_scale(steps, 1.0, 10.0))
            decay = _C_ops.elementwise_min(decay, _C_ops.reshape(ramp, shape=[1]))
        for param, avg in zip(self._params, self._averages):
            d = cast(decay, param._dtype_name)
            fresh = add(multiply(avg, d), multiply(param.detach(), tensor_scale(d, -1.0, 1.0)))
            _C_ops.assign(fresh, out=[avg])
        _C_ops.assign(multiply(self._decay_pow, decay), out=[self._decay_pow])

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Within it the parameters hold their bias-corrected averages; on leaving,
        their trained values come back unless ``need_restore`` is False."""
        executor.run(self._apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Puts back the parameter values that apply() replaced."""
        executor.run(self._restore_program)
