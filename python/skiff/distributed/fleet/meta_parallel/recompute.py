"""Activation recomputation (Paddle's fleet.utils.recompute): a function run without keeping
its intermediate activations, run again in the backward to differentiate it.

    y = recompute(block, x)   # block's activations are freed; only x is kept
    y.sum().backward()        # block(x) runs again here, with the same random draws

Memory falls to the inputs of each recomputed part, for one more forward in the backward.
"""
from ....autograd import PyLayer
from ....autograd import backward as autograd_backward
from ....framework.grad_mode import enable_grad
from ....framework.random import get_rng_state, set_rng_state

__all__ = ["recompute"]


def _is_tensor(x):
    return hasattr(x, "stop_gradient")


class _Recompute(PyLayer):
    """Forward without a graph; the backward rebuilds it from the saved inputs."""

    @staticmethod
    def forward(ctx, function, preserve_rng_state, *inputs):
        ctx.function = function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.inputs = [None if _is_tensor(x) else x for x in inputs]
        ctx.save_for_backward(*[x for x in inputs if _is_tensor(x)])
        return function(*inputs)

    @staticmethod
    def backward(ctx, *grads):
        saved = iter(ctx.saved_tensor())
        inputs, leaves = [], []
        for x in ctx.inputs:
            if x is None:
                tensor = next(saved)
                x = tensor.detach()
                x.stop_gradient = tensor.stop_gradient
                leaves.append(x)
            inputs.append(x)
        current = get_rng_state()
        if ctx.rng_state is not None:
            set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.function(*inputs)
        finally:
            set_rng_state(current)
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if _is_tensor(o) and not o.stop_gradient and g is not None]
        if pairs:
            autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return tuple(None if x.stop_gradient else x.grad for x in leaves)


def recompute(function, *inputs, preserve_rng_state=True):
    """``function(*inputs)``, keeping only ``inputs`` for the backward, which runs
    ``function`` again (from the random generator's state of the forward when
    ``preserve_rng_state``) and adds the gradients of the parameters it uses into their
    ``.grad``. Without an input that needs a gradient the backward never reaches it: run
    such parts directly."""
    return _Recompute.apply(function, preserve_rng_state, *inputs)
