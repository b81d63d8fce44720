"""GroupShardedStage2 (Paddle's name): the model of sharding stages 1 and 2. Every rank
holds every parameter whole; the wrapper makes the ranks start alike and, with
``sync_buffers``, run each forward on the first rank's buffers."""
from ...autograd import no_grad
from ...nn import Layer
from ..collective import broadcast
from .partition import sync_parameters

__all__ = ["GroupShardedStage2"]


class GroupShardedStage2(Layer):
    """Wraps ``layer``: at construction every rank of ``group`` and of ``dp_group`` takes
    the parameters and buffers of the first rank of each."""

    def __init__(self, layer, group, dp_group=None, sync_buffers=False):
        super().__init__()
        self._layer = layer
        self._group = group
        self._dp_group = dp_group
        self._sync_buffers = sync_buffers
        sync_parameters(list(layer.parameters()) + list(layer.buffers()), [group, dp_group])

    def forward(self, *inputs, **kwargs):
        if self._sync_buffers and self._group.nranks > 1:
            for b in self._layer.buffers():
                broadcast(b, self._group.ranks[0], self._group)
        return self._layer(*inputs, **kwargs)

    @no_grad()
    def full_state_dict(self):
        """The layer's state_dict as numpy arrays (every rank holds it whole)."""
        return {k: v.numpy() for k, v in self._layer.state_dict().items()}

    def state_dict(self, *args, **kwargs):
        return self._layer.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        return self._layer.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
