"""recompute (Paddle's paddle.distributed.fleet.utils.recompute): activation
checkpointing. The forward of ``function`` keeps none of its intermediate values; the
backward runs it again, from the saved inputs and the saved random-number state (so
dropout draws the same mask), and differentiates that second run.

    y = recompute(block, x)                           # block: a Layer or a function
    y = recompute_sequential({"segments": 2}, layers, x)

The call is recorded as one PyLayer whose backward re-runs ``function`` and
backpropagates through it; positional Tensor arguments get gradients (a keyword Tensor
that needs one is an error). ``use_reentrant=False`` is accepted for Paddle's scripts and
recomputes the same way: skiff's tape keeps every recorded op's outputs alive, so the
form that records ``function``'s ops and drops only their saved values would save no
memory."""
import contextlib

from ....autograd import PyLayer, enable_grad
from ....autograd import backward as autograd_backward
from ....framework.random import get_rng_state, set_rng_state
from ....nn import Layer, Sequential
from ....tensor.creation import zeros
from .random import get_rng_state_tracker

__all__ = ["recompute", "recompute_sequential"]


class _RandomState:
    """The global generator's state and the model-parallel tracker's, to draw again."""

    def __init__(self):
        self.state = get_rng_state()
        self.tracker = get_rng_state_tracker().get_states_tracker()

    @contextlib.contextmanager
    def restored(self):
        """Within it the generators draw from the saved state; they are put back after."""
        now = _RandomState()
        set_rng_state(self.state)
        get_rng_state_tracker().set_states_tracker(self.tracker)
        try:
            yield
        finally:
            set_rng_state(now.state)
            get_rng_state_tracker().set_states_tracker(now.tracker)


class _Call:
    """``function`` with its arguments, the Tensors among the positional ones standing
    apart (they are the PyLayer's inputs)."""

    def __init__(self, function, args, kwargs, preserve_rng_state):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.tensor_slots = [i for i, a in enumerate(args) if _is_tensor(a)]
        self.random = _RandomState() if preserve_rng_state else None

    def run(self, tensors, replay=False):
        """The call on ``tensors``; ``replay``: drawing the random numbers it drew first."""
        args = list(self.args)
        for i, t in zip(self.tensor_slots, tensors):
            args[i] = t
        with self.random.restored() if replay and self.random else contextlib.nullcontext():
            return self.function(*args, **self.kwargs)


def _is_tensor(value):
    return hasattr(value, "stop_gradient") and hasattr(value, "numpy")


def _detached(tensors):
    """New leaves holding ``tensors``' values, each needing a gradient as its source does."""
    leaves = []
    for t in tensors:
        d = t.detach()
        d.stop_gradient = t.stop_gradient
        leaves.append(d)
    return leaves


def _tensors_of(result):
    return [result] if _is_tensor(result) else \
        [o for o in result if _is_tensor(o)] if isinstance(result, (tuple, list)) else []


class _Recompute(PyLayer):
    """The reentrant recompute: ``call`` run without a tape; its backward re-runs it."""

    @staticmethod
    def forward(ctx, call, anchor, *tensors):
        ctx.call = call
        ctx.save_for_backward(*tensors)
        return call.run(tensors)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensor()
        inputs = _detached(saved)
        with enable_grad():
            outputs = _tensors_of(ctx.call.run(inputs, replay=True))
        pairs = [(o, g) for o, g in zip(outputs, grads) if not o.stop_gradient and g is not None]
        if pairs:
            autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, *[None if t.stop_gradient else d.grad for t, d in zip(saved, inputs)])


def _recompute_reentrant(call, tensors):
    for key, value in call.kwargs.items():
        if _is_tensor(value) and not value.stop_gradient:
            raise ValueError(f"recompute: keyword argument '{key}' is a Tensor that needs a "
                             f"gradient; pass it positionally")
    # A tensor that needs a gradient, so the call is recorded even when no input needs
    # one: the parameters inside ``function`` still get theirs.
    anchor = zeros([1])
    anchor.stop_gradient = False
    return _Recompute.apply(call, anchor, *tensors)


def recompute(function, *args, preserve_rng_state=True, use_reentrant=True, **kwargs):
    """``function(*args, **kwargs)`` (a Layer or any callable returning a Tensor or a
    tuple of them) without keeping its intermediate values for the backward, which runs it
    again (with the random state it had when ``preserve_rng_state``); ``use_reentrant``
    changes nothing (see the module's note)."""
    if not callable(function):
        raise TypeError(f"recompute: function must be a Layer or a callable, got "
                        f"{type(function).__name__}")
    call = _Call(function, args, kwargs, preserve_rng_state)
    tensors = [args[i] for i in call.tensor_slots]
    return _recompute_reentrant(call, tensors)


def recompute_sequential(ctx, functions, *args):
    """Runs ``functions`` (a Sequential or a list of Layers) on ``args`` in
    ``ctx['segments']`` recomputed segments; ``ctx`` may also give 'preserve_rng_state'."""
    layers = list(functions.children()) if isinstance(functions, Sequential) else \
        list(functions)
    segments = int(ctx.get("segments", 1))
    if not 1 <= segments <= len(layers):
        raise ValueError(f"recompute_sequential: segments must be 1 to {len(layers)} (the "
                         f"number of layers), got {segments}")
    if not all(isinstance(f, Layer) or callable(f) for f in layers):
        raise TypeError("recompute_sequential: functions must be Layers or callables")
    size = -(-len(layers) // segments)

    def segment(part):
        def run(*inputs):
            for layer in part:
                inputs = layer(*inputs)
                inputs = inputs if isinstance(inputs, tuple) else (inputs,)
            return inputs[0] if len(inputs) == 1 else inputs
        return run

    for start in range(0, len(layers), size):
        args = recompute(segment(layers[start:start + size]), *args,
                         preserve_rng_state=ctx.get("preserve_rng_state", True))
        args = args if isinstance(args, tuple) else (args,)
    return args[0] if len(args) == 1 else args

