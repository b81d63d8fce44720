"""skiff.base.dygraph: Paddle's dygraph (eager mode) helpers its examples use: guard (run a
block in eager mode), to_variable and no_grad."""
import contextlib

from ..autograd import no_grad  # noqa: F401
from ..framework import mode
from ..tensor.creation import to_tensor


@contextlib.contextmanager
def guard(place=None):
    """Runs the block in eager mode (the default), then restores the mode it found;
    ``place`` is taken for Paddle's signature (skiff runs on the CPU)."""
    was_static = not mode.in_dynamic_mode()
    mode.disable_static()
    try:
        yield
    finally:
        if was_static:
            mode.enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """``value`` (an array, a number, a list or a Tensor) as an eager Tensor."""
    out = to_tensor(value, dtype=dtype)
    if name is not None:
        out.name = name
    return out
