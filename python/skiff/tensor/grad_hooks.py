"""Tensor methods over gradients in Paddle's spellings: register_hook (a function run on
each gradient backward computes for the tensor, which may replace it) and gradient (the
gradient as a numpy array). Installed on Tensor by tensor/methods.py."""
import numpy as np

from ..framework import arguments

# The Tensor methods this module defines (installed by tensor/methods.py).
METHODS = ["register_hook", "gradient"]


class HookRemoveHelper:
    """What register_hook returns: ``remove()`` takes the hook off (True the first time)."""

    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is None:
            return False
        self._tensor._remove_grad_hook(self._id)
        self._tensor = None
        return True


def register_hook(x, hook):
    """Runs ``hook(grad)`` on x's gradient in each backward before it goes on (into
    x.grad for a leaf, to the ops before x otherwise); a Tensor it returns replaces the
    gradient. Hooks run in the order registered. Returns a handle with ``remove()``."""
    if not callable(hook):
        raise arguments.ArgumentTypeError(f"Tensor.register_hook: hook must be callable, got "
                                          f"{type(hook).__name__}")
    if x.stop_gradient:
        raise arguments.ArgumentError("Tensor.register_hook: the tensor has stop_gradient=True, "
                                      "so no gradient reaches it; set stop_gradient=False first")
    return HookRemoveHelper(x, x._add_grad_hook(hook))


def gradient(x):
    """x's gradient as a numpy array, None when it has none; a gradient of selected rows
    (a sparse embedding's) as (the rows' values, the row numbers), as Paddle gives it."""
    grad = x.grad
    if grad is None:
        return None
    if grad._kind == "selected_rows":
        values, rows = grad._rows_parts()
        return values, np.asarray(rows, dtype=np.int64)
    return grad.numpy()
