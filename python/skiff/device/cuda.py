"""paddle.device.cuda on a CPU-only build: no devices; memory and device queries raise
ValueError and stream functions raise skiff.Error, as Paddle's CPU build does; empty_cache does nothing."""
from .. import _C

__all__ = ["device_count", "synchronize", "empty_cache", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "current_stream",
           "get_device_name", "get_device_properties", "get_device_capability"]


def device_count():
    """Number of CUDA devices: 0."""
    return 0


def empty_cache():
    """Releases cached GPU memory; there is none, so it does nothing."""
    return None


def _no_cuda(api):
    raise _C.Error(f"paddle.device.cuda.{api}: skiff is not compiled with CUDA")


def _cpu_only(api):
    raise ValueError(f"The API paddle.device.cuda.{api} is not supported in CPU-only skiff")


def synchronize(device=None):
    """Raises skiff.Error: there is no CUDA device to wait for."""
    _no_cuda("synchronize")


def current_stream(device=None):
    """Raises skiff.Error: there are no CUDA streams."""
    _no_cuda("current_stream")


def get_device_name(device=None):
    """Raises ValueError: there is no CUDA device."""
    _cpu_only("get_device_name")


def get_device_properties(device=None):
    """Raises ValueError: there is no CUDA device."""
    _cpu_only("get_device_properties")


def get_device_capability(device=None):
    """Raises ValueError: there is no CUDA device."""
    _cpu_only("get_device_capability")


def memory_allocated(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("memory_allocated")


def max_memory_allocated(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("max_memory_allocated")


def memory_reserved(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("memory_reserved")


def max_memory_reserved(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("max_memory_reserved")


def reset_max_memory_allocated(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("reset_max_memory_allocated")


def reset_max_memory_reserved(device=None):
    """Raises ValueError: GPU memory queries do not apply to the CPU."""
    _cpu_only("reset_max_memory_reserved")
