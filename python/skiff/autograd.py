"""Gradients in eager mode: skiff.grad, no_grad and friends (the tape lives in C++)."""
import functools

from . import _C
from ._C import Tensor

__all__ = ["grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def _as_list(x):
    if x is None:
        return None
    return [x] if isinstance(x, Tensor) else list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (a list, one per input),
    leaving every ``.grad`` untouched. ``create_graph`` (higher-order) is not supported."""
    if create_graph:
        raise _C.Error("skiff.grad(create_graph=True): higher-order eager gradients are not "
                       "supported; build the program statically and differentiate it twice")
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    gouts = _as_list(grad_outputs)
    return _C.grad(outs, ins, gouts, bool(retain_graph), allow_unused)


class set_grad_enabled:
    """Turns gradient recording on or off, as a call or a context manager."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        _C.set_grad_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self.prev)


class _GradMode:
    enabled = False

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C.set_grad_enabled(self.enabled)
        return self

    def __exit__(self, *exc):
        _C.set_grad_enabled(self.prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Within it (or a function it decorates) ops record no gradients."""
    enabled = False


class enable_grad(_GradMode):
    enabled = True


def is_grad_enabled():
    return _C.is_grad_enabled()
