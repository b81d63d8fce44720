"""DataParallel (Paddle's paddle.DataParallel): a layer trained on every rank on its own
part of the batch, with gradients averaged over the ranks during the backward.

Gradients are put in buckets of about ``comm_buffer_size`` MB (parameters in reverse
order, roughly the order the backward finishes them). A bucket is all-reduced on a
background thread as soon as each of its gradients is complete and every earlier bucket
has started, while the backward goes on; the backward returns once every bucket is done.
Every rank therefore runs the same all-reduces in the same order. A parameter that got
no gradient in a step (unused in the forward) reduces zeros, so ranks that used it and
ranks that did not still agree.
"""
import contextlib

from .. import _C
from ..framework.dtype import dtype_name, numpy_dtype
from ..nn import Layer
from ..tensor.creation import zeros_like
from . import collective

__all__ = ["DataParallel", "sync_params_buffers"]


def sync_params_buffers(layer, group=None, src_rank=0):
    """Every rank takes rank ``src_rank``'s parameters and buffers."""
    group = group or collective._world()
    if group.nranks == 1:
        return
    for tensor in list(layer.parameters()) + list(layer.buffers()):
        collective.broadcast(tensor, src_rank, group)


class _Reducer:
    def __init__(self, params, group, bucket_bytes, last_bucket_bytes):
        self.group = group
        self.buckets = self._make_buckets(params, bucket_bytes, last_bucket_bytes)
        self.bucket_of = {id(p): i for i, b in enumerate(self.buckets) for p in b}
        self.async_reduce = _C.AsyncAllReduce(group.id, collective.ReduceOp.AVG)
        self.enabled = True
        self._reset()
        self.hooks = [(p, _C.register_grad_ready_hook(p, self._grad_ready))
                      for b in self.buckets for p in b]

    @staticmethod
    def _make_buckets(params, bucket_bytes, last_bucket_bytes):
        buckets, current, size, dtype = [], [], 0, None
        # The first bucket reduced is the last parameters': keep it small so the
        # reduction starts early.
        limit = last_bucket_bytes
        for p in reversed(params):
            name = dtype_name(p.dtype)
            nbytes = p.size * (2 if name == "bfloat16" else numpy_dtype(name).itemsize)
            if current and (size + nbytes > limit or p.dtype != dtype):
                buckets.append(current)
                current, size, limit = [], 0, bucket_bytes
            current.append(p)
            size += nbytes
            dtype = p.dtype
        if current:
            buckets.append(current)
        return buckets

    def _reset(self):
        self.ready = [0] * len(self.buckets)
        self.next_bucket = 0
        self.in_backward = False

    def _grad_ready(self, param):
        if not self.enabled:
            return
        if not self.in_backward:
            self.in_backward = True
            _C.queue_backward_callback(self._finish)
        b = self.bucket_of[id(param)]
        self.ready[b] += 1
        self._launch_ready()

    def _launch_ready(self):
        while (self.next_bucket < len(self.buckets)
               and self.ready[self.next_bucket] == len(self.buckets[self.next_bucket])):
            self._submit(self.buckets[self.next_bucket])
            self.next_bucket += 1

    def _submit(self, bucket):
        for p in bucket:
            if p.grad is None:
                p.grad = zeros_like(p)
        self.async_reduce.submit([p.grad for p in bucket])

    def _finish(self):
        try:
            while self.next_bucket < len(self.buckets):  # unused parameters: zeros
                self._submit(self.buckets[self.next_bucket])
                self.next_bucket += 1
            self.async_reduce.wait()
        finally:
            self._reset()

    def remove(self):
        for p, hook in self.hooks:
            _C.remove_grad_ready_hook(p, hook)
        self.hooks = []


class DataParallel(Layer):
    """Wraps ``layers`` for data-parallel training: the first rank of ``group`` (default:
    the world) broadcasts its parameters at construction, and each backward averages the
    gradients over the group's ranks.
    Inside ``no_sync()`` gradients accumulate locally (the next synced backward averages
    the sum). Parameters a step did not use are always handled (they reduce zeros), so
    ``find_unused_parameters`` is accepted for Paddle's scripts and changes nothing;
    ``strategy`` likewise."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a skiff.nn.Layer, got "
                            f"{type(layers).__name__}")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self._group = group or collective._world()
        self._reducer = None
        if self._group.nranks > 1:
            sync_params_buffers(layers, self._group, self._group.ranks[0])
            params = [p for p in layers.parameters() if not p.stop_gradient]
            self._reducer = _Reducer(params, self._group, int(comm_buffer_size * 2**20),
                                     int(last_comm_buffer_size * 2**20))

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        if self._reducer is None:
            yield
            return
        previous = self._reducer.enabled
        self._reducer.enabled = False
        try:
            yield
        finally:
            self._reducer.enabled = previous

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        return self._layers.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict

    def scale_loss(self, loss):
        return loss  # gradients are averaged, not summed: nothing to scale

    def apply_collective_grads(self):
        pass  # done by the backward
