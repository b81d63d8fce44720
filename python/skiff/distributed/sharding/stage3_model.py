"""GroupShardedStage3 (Paddle's name): sharding stage 3, parameters sharded too. Each
parameter of at least ``segment_size`` elements lives as one slice per rank
(ParameterSlice); smaller ones stay whole on every rank.

A sublayer gathers its parameters' whole values just before its forward and frees them
just after. What the forward's ops save for the backward is packed (saved_tensors_hooks):
a whole parameter is kept as a reference to its ParameterSlice, gathered again when the
backward needs it. When a parameter's gradient is complete it is reduce-scattered into
its slice's gradient (averaged over the group, then over ``dp_group``) and the whole
value is freed again. Whole (unsliced) parameters have their gradients averaged."""
from ... import _C
from ...autograd import no_grad, saved_tensors_hooks
from ...nn import Layer
from ...tensor.creation import zeros, zeros_like
from ..collective import broadcast
from .parameter_slice import ParameterSlice
from .partition import average_gradient, sync_parameters, trainable_parameters

__all__ = ["GroupShardedStage3"]


class _Packed:
    """A saved whole parameter, by reference to its slices."""

    def __init__(self, sliced):
        self.sliced = sliced


class GroupShardedStage3(Layer):
    """Wraps ``layer`` for stage 3 over ``group``: its parameters of at least
    ``segment_size`` elements are cut into slices (``slices()``, what the optimizer must
    update). ``sync_buffers``: every forward first takes the group's first rank's buffers."""

    def __init__(self, layer, group, dp_group=None, segment_size=2**20, sync_buffers=False):
        super().__init__()
        self._layer = layer
        self._group = group
        self._dp_group = dp_group
        self._sync_buffers = sync_buffers
        params = trainable_parameters(layer)
        sync_parameters(list(layer.parameters()) + list(layer.buffers()), [group, dp_group])
        self._sliced = {id(p): ParameterSlice(p, group) for p in params
                        if int(p.size) >= segment_size}
        self._whole = [p for p in params if id(p) not in self._sliced]
        self._params = params
        self._pending = None
        for sub in layer.sublayers(include_self=True):
            own = [self._sliced[id(p)] for p in sub._parameters.values()
                   if p is not None and id(p) in self._sliced]
            if own:
                sub.register_forward_pre_hook(lambda _, inputs, own=own: self._gather(own))
                sub.register_forward_post_hook(lambda _, i, o, own=own: self._release(own))
        for p in params:
            _C.register_grad_ready_hook(p, self._grad_ready)

    def slices(self):
        """{id(parameter): what the optimizer updates in its place}: its slice, or the
        parameter itself when it is kept whole."""
        kept = {pid: s.slice for pid, s in self._sliced.items()}
        kept.update({id(p): p for p in self._whole})
        return kept

    def whole_parameters(self):
        """The parameters kept whole on every rank (fewer than segment_size elements)."""
        return list(self._whole)

    @staticmethod
    def _gather(own):
        for s in own:
            s.gather()

    @staticmethod
    def _release(own):
        for s in own:
            s.release()

    def _pack(self, tensor):
        for s in self._sliced.values():
            if s.gathered and tensor._share_memory_with(s.param) \
                    and list(tensor.shape) == s.shape and tensor.dtype == s.param.dtype:
                return _Packed(s)
        return tensor

    @staticmethod
    def _unpack(packed):
        if isinstance(packed, _Packed):
            packed.sliced.gather()
            return packed.sliced.param
        return packed

    def forward(self, *inputs, **kwargs):
        if self._sync_buffers and self._group.nranks > 1:
            for b in self._layer.buffers():
                broadcast(b, self._group.ranks[0], self._group)
        with saved_tensors_hooks(self._pack, self._unpack):
            return self._layer(*inputs, **kwargs)

    # ----- the backward ----------------------------------------------------------------
    def _grad_ready(self, param):
        if self._pending is None:
            self._pending = {id(p): p for p in self._params}
            _C.queue_backward_callback(self._finish)
        self._pending.pop(id(param), None)
        self._reduce(param, param.grad)

    def _finish(self):
        pending, self._pending = self._pending, None
        for p in pending.values():  # not reached by this backward: zeros
            sliced = self._sliced.get(id(p))
            self._reduce(p, zeros(sliced.shape, p.dtype) if sliced else zeros_like(p))

    @no_grad()
    def _reduce(self, param, grad):
        sliced = self._sliced.get(id(param))
        if sliced is None:
            if param.grad is None:
                param.grad = grad
            average_gradient(param.grad, [self._group, self._dp_group])
            return
        part = sliced.reduce_gradient(grad)
        average_gradient(part, [self._dp_group])
        held = sliced.slice.grad
        sliced.slice.grad = part if held is None else held + part
        param.grad = None
        sliced.release()

    # ----- whole values ----------------------------------------------------------------
    @no_grad()
    def full_state_dict(self):
        """The layer's state_dict with every parameter whole (numpy arrays), on every rank."""
        state = {}
        for key, value in self._layer.state_dict().items():
            sliced = self._sliced.get(id(value))
            state[key] = (sliced.whole() if sliced else value).numpy()
        return state

    def state_dict(self, *args, **kwargs):
        return self._layer.state_dict(*args, **kwargs)

    @no_grad()
    def set_state_dict(self, state_dict, *args, **kwargs):
        """Loads a whole-model state: each sliced parameter takes its rank's slice."""
        rest = {}
        own = self._layer.state_dict()
        for key, value in state_dict.items():
            sliced = self._sliced.get(id(own.get(key)))
            if sliced is None:
                rest[key] = value
            else:
                sliced.slice.set_value(sliced.cut(value))
        return self._layer.set_state_dict(rest, *args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
