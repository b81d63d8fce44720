"""ShardingOptimizer: sharding stages 1 and 2 (Paddle's DygraphShardingOptimizer and
GroupShardedOptimizerStage2). Each rank of the sharding group owns the optimizer state of
a part of the parameters (balanced by size) and updates only those; the owners then
broadcast them, so every rank holds every parameter whole.

    opt = ShardingOptimizer(skiff.optimizer.Adam(parameters=model.parameters()),
                            hcg.get_sharding_parallel_group(), hcg.get_data_parallel_group())
    loss.backward(); opt.step(); opt.clear_grad()

Stage 1 averages every gradient over the group (and ``dp_group``) in step(); stage 2
(``shard_gradients=True``) reduces each gradient to its owner during the backward."""
import math

from ...autograd import no_grad
from ...nn.clip import ClipGradByGlobalNorm
from ...tensor.creation import to_tensor, zeros_like
from ..collective import ReduceOp, all_gather_object, all_reduce, broadcast
from .gradient_reduction import GradientReducer
from .partition import average_gradient, partition_parameters, restrict_optimizer

__all__ = ["ShardingOptimizer"]


def check_clip(optimizer, what):
    """Sharding clips by the global norm itself; a per-group clip it cannot honour."""
    for group in optimizer._param_groups:
        if group.get("grad_clip") is not None:
            raise ValueError(f"{what}: a parameter group sets its own grad_clip; with "
                             f"sharding only the optimizer's grad_clip is supported")


@no_grad()
def clip_by_global_norm(clip, grads, group, shared=()):
    """Scales ``grads`` (this rank's share of all the gradients) in place by
    clip_norm / max(global norm, clip_norm), the norm summed over ``group``; a gradient in
    ``shared`` is held whole by every rank and counts once."""
    total = 0.0
    for g in grads:
        part = float((g * g).sum().numpy())
        total += part / group.nranks if id(g) in shared else part
    norm = to_tensor([total], dtype="float64")
    all_reduce(norm, ReduceOp.SUM, group)
    global_norm = math.sqrt(float(norm.numpy()[0]))
    scale = clip.clip_norm / max(global_norm, clip.clip_norm)
    for g in grads:
        g.scale_(scale)


class ShardingOptimizer:
    """Wraps ``optimizer`` for sharding over ``group`` (stage 1; stage 2 with
    ``shard_gradients``); gradients are also averaged over ``dp_group`` when given. Other
    attributes (get_lr, set_lr, ...) are the wrapped optimizer's."""

    def __init__(self, optimizer, group, dp_group=None, shard_gradients=False):
        check_clip(optimizer, "ShardingOptimizer")
        self._inner = optimizer
        self._group = group
        self._dp_group = dp_group
        self._params = [p for p in optimizer._parameter_list if not p.stop_gradient]
        owners = partition_parameters(self._params, group.nranks)
        self._owner = {id(p): o for p, o in zip(self._params, owners)}
        self._owned = [p for p, o in zip(self._params, owners) if o == group.rank]
        self._clip = optimizer._grad_clip
        if self._clip is not None and not isinstance(self._clip, ClipGradByGlobalNorm):
            raise ValueError(f"ShardingOptimizer: grad_clip {type(self._clip).__name__} is "
                             f"not supported; use ClipGradByGlobalNorm")
        optimizer._grad_clip = None  # clipped here, over the whole group
        restrict_optimizer(optimizer, {id(p): p for p in self._owned}, "ShardingOptimizer")
        self._reducer = GradientReducer(self._params, owners, group, dp_group) \
            if shard_gradients else None

    def __getattr__(self, name):
        return getattr(self.__dict__["_inner"], name)

    @property
    def owned_parameters(self):
        """The parameters whose optimizer state this rank holds."""
        return list(self._owned)

    @no_grad()
    def _average_gradients(self):
        for p in self._params:
            if p.grad is None:
                p.grad = zeros_like(p)
            average_gradient(p.grad, [self._group, self._dp_group])

    @no_grad()
    def step(self):
        """Averages the gradients (stage 1), updates this rank's parameters and takes the
        others from their owners."""
        if self._reducer is None:
            self._average_gradients()
        else:
            for p in self._owned:
                p.grad = self._reducer.reduced.get(id(p))
        if self._clip is not None:
            grads = [p.grad for p in self._owned if p.grad is not None]
            clip_by_global_norm(self._clip, grads, self._group)
        self._inner.step()
        for p in self._params:
            broadcast(p, self._group.ranks[self._owner[id(p)]], self._group)
        if self._reducer is not None:
            for p in self._owned:
                p.grad = None

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()
        return None, []

    def clear_grad(self, set_to_zero=True):
        """Zeroes (or drops) every gradient of the model: this rank's reduced ones too."""
        if self._reducer is not None:
            self._reducer.clear(set_to_zero)
        for p in self._params:
            if p.grad is not None:
                if set_to_zero:
                    p.grad._zero_()
                else:
                    p.grad = None

    clear_gradients = clear_grad

    def state_dict(self):
        """This rank's part of the optimizer state."""
        return self._inner.state_dict()

    def set_state_dict(self, state_dict):
        """Loads a whole optimizer state (each rank takes the entries of its parameters)."""
        self._inner.set_state_dict(state_dict)

    def full_state_dict(self):
        """The whole optimizer state as one process's optimizer would hold it, on every
        rank (numpy arrays)."""
        mine = {k: (v.numpy() if hasattr(v, "numpy") else v)
                for k, v in self._inner.state_dict().items()}
        parts = []
        all_gather_object(parts, mine, self._group)
        whole = {}
        for part in parts:
            whole.update(part)
        return whole
