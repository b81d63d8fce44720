"""Stage 2's gradients: during the backward each parameter's gradient, once complete, is
reduced to the rank of the sharding group that owns the parameter (and averaged over the
data-parallel group there); no rank keeps the gradient of a parameter it does not own.

The owner adds what it receives to the parameter's entry in ``reduced`` (so gradients
accumulate over several backwards until clear_grad); ``parameter.grad`` stays None on
every rank. Every rank reduces the same parameters in the same order: a parameter a
backward did not reach reduces zeros when the backward ends."""
from ... import _C
from ...autograd import no_grad
from ...tensor.creation import zeros_like
from ..collective import ReduceOp, reduce
from .partition import average_gradient

__all__ = ["GradientReducer"]


class GradientReducer:
    """Reduces ``params``' gradients to their owners (``owners[i]``: the group rank owning
    ``params[i]``) as the backward completes them."""

    def __init__(self, params, owners, group, dp_group=None):
        self.params = params
        self.group = group
        self.dp_group = dp_group
        self.owner = {id(p): o for p, o in zip(params, owners)}
        self.reduced = {}  # id(parameter) -> its averaged gradient (owned parameters only)
        self.pending = None
        self.hooks = [(p, _C.register_grad_ready_hook(p, self._grad_ready)) for p in params]

    def _grad_ready(self, param):
        if self.pending is None:
            self.pending = {id(p): p for p in self.params}
            _C.queue_backward_callback(self._finish)
        self.pending.pop(id(param), None)
        self._reduce(param, param.grad)

    def _finish(self):
        pending, self.pending = self.pending, None
        for p in pending.values():
            self._reduce(p, zeros_like(p))

    @no_grad()
    def _reduce(self, param, grad):
        owner = self.owner[id(param)]
        reduce(grad, self.group.ranks[owner], ReduceOp.SUM, self.group)
        param.grad = None
        if owner != self.group.rank:
            return
        grad = grad * (1.0 / self.group.nranks)
        average_gradient(grad, [self.dp_group])
        held = self.reduced.get(id(param))
        self.reduced[id(param)] = grad if held is None else held + grad

    def clear(self, set_to_zero=True):
        """Forgets (or zeroes) the reduced gradients."""
        if set_to_zero:
            for g in self.reduced.values():
                g._zero_()
        else:
            self.reduced = {}

    def remove(self):
        for p, hook in self.hooks:
            _C.remove_grad_ready_hook(p, hook)
        self.hooks = []
