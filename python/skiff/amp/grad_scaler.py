"""GradScaler (Paddle's paddle.amp.GradScaler): multiplies the loss by a scale, unscales the
gradients, skips optimizer steps whose gradients hold inf or NaN, and adapts the scale."""
from .. import _C_ops
import collections
import enum

import numpy as np

from ..autograd import no_grad
from ..framework import arguments, dtype as dt
from ..tensor import all as _all
from ..optimizer.optimizer import Optimizer

__all__ = ["GradScaler", "AmpScaler", "OptimizerState"]


class OptimizerState(enum.Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_states():
    return collections.defaultdict(lambda: {"state": OptimizerState.INIT})


_FN = "GradScaler"


def _incr_ratio(value):
    return arguments.real(_FN, "incr_ratio", value, above=1.0)


def _decr_ratio(value):
    return arguments.real(_FN, "decr_ratio", value, above=0.0, below=1.0)


def _every(param, value):
    """A step count (incr_every_n_steps, decr_every_n_nan_or_inf): an int >= 1."""
    return arguments.count(_FN, param, value, low=1)


def _check_optimizer(optimizer):
    """Raises naming GradScaler unless ``optimizer`` is a skiff optimizer."""
    if not isinstance(optimizer, Optimizer):
        raise arguments.ArgumentTypeError(f"{_FN}: optimizer must be a skiff optimizer, got "
                                          f"{type(optimizer).__name__}")


class AmpScaler:
    """Loss scaling for mixed-precision training (see GradScaler for the arguments)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        self._enable = arguments.flag(_FN, "enable", enable)
        init = arguments.number(_FN, "init_loss_scaling", init_loss_scaling)
        if enable:
            incr_ratio, decr_ratio = _incr_ratio(incr_ratio), _decr_ratio(decr_ratio)
        else:  # (any value: a disabled scaler never uses them)
            incr_ratio = arguments.number(_FN, "incr_ratio", incr_ratio)
            decr_ratio = arguments.number(_FN, "decr_ratio", decr_ratio)
        self._init_loss_scaling = init if enable else 1.0
        self._scale = self._init_loss_scaling
        self._incr_ratio, self._decr_ratio = incr_ratio, decr_ratio
        self._incr_every_n_steps = arguments.integer(_FN, "incr_every_n_steps",
                                                     incr_every_n_steps)
        self._decr_every_n_nan_or_inf = arguments.integer(_FN, "decr_every_n_nan_or_inf",
                                                          decr_every_n_nan_or_inf)
        dynamic = arguments.flag(_FN, "use_dynamic_loss_scaling", use_dynamic_loss_scaling)
        self._use_dynamic_loss_scaling = dynamic if enable else False
        self._incr_count = 0
        self._decr_count = 0
        self._found_inf = False
        self._cache_found_inf = False
        self._optimizer_states = _fresh_states()

    def scale(self, var):
        """The loss multiplied by the current scale (unchanged when disabled)."""
        if not self._enable:
            return var
        return _C_ops.scale(var, scale=self._scale, bias=0.0)

    @no_grad()
    def _unscale(self, optimizer):
        _check_optimizer(optimizer)
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        for p in optimizer._parameter_list or []:
            g = p.grad
            if g is None:
                continue
            _C_ops.scale(g, scale=inv, bias=0.0, out=[g])
            finite = g if g.dtype in (dt.float32, dt.float64) else _C_ops.cast(
                g, out_dtype="float32")
            if not found and not bool(_all(_C_ops.isfinite(finite)).numpy()):
                found = True
        self._found_inf = found
        state["state"] = OptimizerState.UNSCALED

    def unscale_(self, optimizer):
        """Divides the optimizer's parameter gradients by the scale and records whether any
        holds inf or NaN (then the next step is skipped)."""
        return self._unscale(optimizer)

    def minimize(self, optimizer, *args, **kwargs):
        """optimizer.minimize(*args) unless the unscaled gradients hold inf/NaN (then the
        step is skipped); then updates the scale."""
        _check_optimizer(optimizer)
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        if self._optimizer_states[id(optimizer)]["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        result = (None, None)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = _fresh_states()
        return result

    def _update(self):
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                self._scale = self._scale * self._decr_ratio
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale * self._incr_ratio
                self._incr_count = 0

    def is_enable(self):
        """Whether loss scaling is on."""
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        """Whether the scale adapts to inf/NaN gradients."""
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        """Sets the initial and the current scale."""
        self._init_loss_scaling = arguments.number(_FN, "new_init_loss_scaling",
                                                   new_init_loss_scaling)
        self._scale = self._init_loss_scaling

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        self._incr_ratio = _incr_ratio(new_incr_ratio)

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        self._decr_ratio = _decr_ratio(new_decr_ratio)

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = _every("incr_every_n_steps", new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = _every("decr_every_n_nan_or_inf",
                                               new_decr_every_n_nan_or_inf)

    def state_dict(self):
        """The scale (a [1] float32 array) and the counters; {} when disabled."""
        if not self._enable:
            return {}
        return {"scale": np.array([self._scale], dtype=np.float32),
                "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
                "incr_count": self._incr_count, "decr_count": self._decr_count,
                "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        if not self._enable:
            return
        if not state_dict:
            raise RuntimeError("GradScaler.load_state_dict: the state dict is empty, maybe it "
                               "was saved from a disabled GradScaler")
        self._init_loss_scaling = float(np.asarray(state_dict["scale"]).reshape(-1)[0])
        self._scale = self._init_loss_scaling
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = state_dict["incr_count"]
        self._decr_count = state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]


class GradScaler(AmpScaler):
    """Loss scaling: scale(loss) multiplies by the scale; step/minimize unscale gradients
    and skip the update when one holds inf/NaN; update() halves the scale after
    decr_every_n_nan_or_inf bad steps and doubles it after incr_every_n_steps good ones."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio,
                         incr_every_n_steps, decr_every_n_nan_or_inf,
                         use_dynamic_loss_scaling)

    def step(self, optimizer):
        """optimizer.step() on the unscaled gradients, skipped when one holds inf/NaN."""
        _check_optimizer(optimizer)
        if not self._enable:
            return optimizer.step()
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = _fresh_states()

    def update(self):
        """Adapts the scale to the last step (dynamic loss scaling only)."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = _fresh_states()
