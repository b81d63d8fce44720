"""TensorParallel (Paddle's fleet.meta_parallel.TensorParallel): the wrapper of a model
built from tensor-parallel layers, for a layout of model x data parallelism.

    hcg = fleet.get_hybrid_communicate_group()
    model = TensorParallel(model, hcg)     # replicated parameters start equal
    loss = loss_fn(model(x), y)
    loss.backward()                        # gradients averaged over the data-parallel group
"""
import contextlib

from ....nn import Layer
from ... import collective
from ...parallel import DataParallel

__all__ = ["TensorParallel"]


def broadcast_replicated(layers, hcg):
    """Every model-parallel rank takes the first rank's parameters and buffers, except the
    split ones (``is_distributed``), each rank keeping its own slice of those."""
    group = hcg.get_model_parallel_group()
    if group.nranks == 1:
        return
    src = hcg.get_model_parallel_group_src_rank()
    for tensor in list(layers.parameters()) + list(layers.buffers()):
        if not getattr(tensor, "is_distributed", False):
            collective.broadcast(tensor, src, group)


class TensorParallel(Layer):
    """Runs ``layers`` (made of ColumnParallelLinear, RowParallelLinear, ... and replicated
    layers) on this rank's part of the model: at construction the replicated parameters
    are broadcast from the first rank of the model-parallel group, and with a data-parallel
    degree above 1 the model is wrapped in a DataParallel over the data-parallel group
    (parameters broadcast from its first rank, gradients averaged in each backward).
    ``strategy``'s fuse_grad_size_in_MB and last_comm_group_size_MB size its buckets."""

    def __init__(self, layers, hcg, strategy=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"TensorParallel: layers must be a skiff.nn.Layer, got "
                            f"{type(layers).__name__}")
        self._hcg = hcg
        self._strategy = strategy
        broadcast_replicated(layers, hcg)
        if hcg.get_data_parallel_world_size() > 1:
            sizes = {} if strategy is None else {
                "comm_buffer_size": strategy.fuse_grad_size_in_MB,
                "last_comm_buffer_size": strategy.last_comm_group_size_MB}
            layers = DataParallel(layers, group=hcg.get_data_parallel_group(), **sizes)
        self._layers = layers

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Within it gradients accumulate on each rank without the data-parallel average."""
        if isinstance(self._layers, DataParallel):
            with self._layers.no_sync():
                yield
        else:
            yield

    def state_dict(self, *args, **kwargs):
        """The wrapped model's state (this rank's slices of the split parameters)."""
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        return self._layers.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
