"""GroupShardedOptimizerStage3: the optimizer of a GroupShardedStage3 model. It updates
the parameters' slices (and the parameters kept whole), so each rank holds the optimizer
state of its slices only; it clips by the global norm over the group, and turns its state
into one process's state (and back) for checkpoints."""
import numpy as np

from ...autograd import no_grad
from ...nn.clip import ClipGradByGlobalNorm
from ..collective import all_gather_object
from .partition import restrict_optimizer
from .sharding_optimizer import check_clip, clip_by_global_norm

__all__ = ["GroupShardedOptimizerStage3"]


class GroupShardedOptimizerStage3:
    """Makes ``optimizer`` update the slices of ``model`` (a GroupShardedStage3). Other
    attributes (get_lr, set_lr, ...) are the wrapped optimizer's."""

    def __init__(self, optimizer, model):
        check_clip(optimizer, "GroupShardedOptimizerStage3")
        self._inner = optimizer
        self._model = model
        self._clip = optimizer._grad_clip
        if self._clip is not None and not isinstance(self._clip, ClipGradByGlobalNorm):
            raise ValueError(f"GroupShardedOptimizerStage3: grad_clip "
                             f"{type(self._clip).__name__} is not supported; use "
                             f"ClipGradByGlobalNorm")
        optimizer._grad_clip = None  # clipped here, over the whole group
        restrict_optimizer(optimizer, model.slices(), "GroupShardedOptimizerStage3")
        self._slice_by_name = {s.slice.name: s for s in model._sliced.values()}

    def __getattr__(self, name):
        return getattr(self.__dict__["_inner"], name)

    @no_grad()
    def step(self):
        """Updates this rank's slices and the whole parameters."""
        if self._clip is not None:
            whole = {id(p) for p in self._model.whole_parameters()}
            pairs = [(p, p.grad) for p in self._inner._parameter_list if p.grad is not None]
            shared = {id(g) for p, g in pairs if id(p) in whole}
            clip_by_global_norm(self._clip, [g for _, g in pairs], self._model._group, shared)
        self._inner.step()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()
        return None, []

    def clear_grad(self, set_to_zero=True):
        self._inner.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def _slice_of(self, key):
        """The ParameterSlice whose optimizer state ``key`` is ('<param name>_<kind>_<n>')."""
        for name, s in self._slice_by_name.items():
            if key.startswith(name + "_"):
                return s
        return None

    def state_dict(self):
        """This rank's part of the optimizer state (its slices')."""
        return self._inner.state_dict()

    def set_state_dict(self, state_dict):
        """Loads one process's optimizer state: each rank takes its slices' part."""
        state = {}
        for key, value in state_dict.items():
            s = self._slice_of(key) if key != "LR_Scheduler" else None
            state[key] = s.cut(value) if s and list(np.shape(value)) == s.shape else value
        self._inner.set_state_dict(state)

    def full_state_dict(self):
        """The optimizer state one process would hold (numpy arrays), on every rank."""
        mine = {k: (v.numpy() if hasattr(v, "numpy") else v)
                for k, v in self._inner.state_dict().items()}
        parts = []
        all_gather_object(parts, mine, self._model._group)
        whole = {}
        for key, value in mine.items():
            s = self._slice_of(key) if key != "LR_Scheduler" else None
            if s is not None and np.shape(value) == (s.length,):
                value = np.concatenate([p[key] for p in parts])[:s.numel].reshape(s.shape)
            whole[key] = value
        return whole
