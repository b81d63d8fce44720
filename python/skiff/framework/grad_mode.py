"""Whether ops record gradients: no_grad / enable_grad (context managers and decorators),
set_grad_enabled and is_grad_enabled, over the switch the C++ eager runtime reads."""
import functools

from .. import _C

__all__ = ["set_grad_enabled", "no_grad", "enable_grad", "is_grad_enabled"]


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
