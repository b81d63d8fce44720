"""Device placement in static programs: device_guard, cuda_places and xpu_places.
skiff runs on the CPU only."""
import contextlib

from .. import _C

__all__ = ["device_guard", "cuda_places", "xpu_places"]

_ACCELERATORS = ("gpu", "xpu", "dcu")


@contextlib.contextmanager
def device_guard(device=None):
    """Ops built within run on ``device``: 'cpu' or None (the default place) only, since
    skiff has no accelerator; 'gpu', 'gpu:0', 'xpu', ... raise skiff.Error."""
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device_guard: device must be a str or None, got "
                        f"{type(device).__name__}")
    kind = (device or "").split(":")[0]
    if kind in _ACCELERATORS:
        raise _C.Error(f"device_guard: device {device!r} is not available: skiff runs on the "
                       f"CPU only (use 'cpu' or None)")
    if kind not in ("", "cpu"):
        raise ValueError(f"device_guard: device should be 'cpu', 'gpu', 'xpu', 'dcu', '' or "
                         f"None, got {device!r}")
    yield


def cuda_places(device_ids=None):
    """Paddle's CUDA places; on a build without CUDA (skiff's) an AssertionError, as
    Paddle's CPU build raises."""
    raise AssertionError("cuda_places: not compiled with CUDA (skiff runs on the CPU; "
                         "use skiff.static.cpu_places())")


def xpu_places(device_ids=None):
    """Paddle's XPU places; skiff has none, so an AssertionError as in Paddle."""
    raise AssertionError("xpu_places: not compiled with XPU (skiff runs on the CPU; use "
                         "skiff.static.cpu_places())")
