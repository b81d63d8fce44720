"""Devices (Paddle's paddle.device): skiff runs on the CPU only, so the queries answer as
Paddle's CPU build does — one device "cpu", no CUDA/ROCm/XPU/IPU/CINN, no custom devices."""
import re

from .. import _C
from ..framework import random as _random
from ..framework.tensor_params import ANY, accepts
from ..static.executor import CPUPlace
from . import cuda

__all__ = ["set_device", "get_device", "get_all_device_type", "get_all_custom_device_type",
           "get_available_device", "get_available_custom_device", "device_count",
           "is_available", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu", "is_compiled_with_ipu", "is_compiled_with_cinn",
           "is_compiled_with_distribute", "is_compiled_with_custom_device",
           "is_bf16_supported", "synchronize", "current_device", "cpu_info",
           "set_max_cpu_isa", "get_cudnn_version", "get_rng_state", "set_rng_state", "cuda",
           "memory_allocated", "max_memory_allocated", "reset_max_memory_allocated"]

_ACCELERATOR = re.compile(r"^(gpu|dcu|xpu|npu|ipu)(:\d+)?$")


def set_device(device):
    """Selects the device for new tensors; only "cpu" exists here. Returns the Place."""
    if not isinstance(device, str):
        raise ValueError(f"set_device: device must be a string such as 'cpu', got {device!r}")
    name = device.strip().lower()
    if name == "cpu":
        return CPUPlace()
    if _ACCELERATOR.match(name):
        raise ValueError(f"set_device: the device should not be {device!r}, since skiff is "
                         "built for the CPU only")
    raise ValueError(f"set_device: the device must be a string like 'cpu', 'gpu', 'gpu:x', "
                     f"'xpu', 'xpu:x', 'npu', 'npu:x', got {device!r}")


@accepts(input=ANY)  # a Tensor, or anything else for the device's name
def get_device(input=None):
    """The current device's name ("cpu"); given a Tensor, the id of the device holding it
    (-1: the CPU, where every skiff Tensor lives)."""
    if input is not None and isinstance(input, _C.Tensor):
        return -1
    return "cpu"


def get_cudnn_version():
    """The cuDNN version this build links: None, as skiff has no CUDA kernels."""
    return None


def get_rng_state(device=None):
    """The CPU generator's current point (one GeneratorState); set_rng_state(it) returns
    there. ``device`` may be None, "cpu" or a CPUPlace."""
    return _random.get_rng_state(_cpu_name("get_rng_state", device))[0]


def set_rng_state(new_state, device=None):
    """Returns the CPU generator to a point get_rng_state saved (one GeneratorState)."""
    if not isinstance(new_state, _random.GeneratorState):
        raise TypeError("set_rng_state: new_state must be the GeneratorState that "
                        f"paddle.device.get_rng_state returned, got {type(new_state).__name__}")
    _random.set_rng_state([new_state], _cpu_name("set_rng_state", device))


def _cpu_name(fn, device):
    """None for the CPU device however it is named; an error naming ``fn`` otherwise."""
    if device is None or isinstance(device, CPUPlace) or str(device).lower() == "cpu":
        return None
    raise ValueError(f"{fn}: device must be None, 'cpu' or a CPUPlace (skiff runs on the "
                     f"CPU), got {device!r}")


def current_device():
    """The index of the current device (0)."""
    return 0


def get_all_device_type():
    """Accelerator device types this build knows (none: the CPU is not listed, as in Paddle)."""
    return []


def get_all_custom_device_type():
    """Custom (plug-in) device types: none."""
    return []


def get_available_device():
    """Accelerator devices available, such as "gpu:0" (none)."""
    return []


def get_available_custom_device():
    """Custom devices available (none)."""
    return []


def device_count(device_type=None):
    """Number of accelerator devices (0, as in Paddle's CPU build)."""
    return 0


def is_available():
    """Whether an accelerator is available (False)."""
    return False


def is_compiled_with_cuda():
    """False: skiff has no CUDA kernels."""
    return False


def is_compiled_with_rocm():
    """False: skiff has no ROCm kernels."""
    return False


def is_compiled_with_xpu():
    """False: skiff has no XPU kernels."""
    return False


def is_compiled_with_ipu():
    """False: skiff has no IPU support."""
    return False


def is_compiled_with_cinn():
    """False: skiff compiles programs with its own code generator, not CINN."""
    return False


def is_compiled_with_distribute():
    """False: skiff has no multi-process training."""
    return False


def is_compiled_with_custom_device(device_type):
    """False for every custom device type."""
    return False


def is_bf16_supported(including_emulation=True):
    """True: matmul and conv2d take bfloat16 inputs on every CPU (float32 accumulation; where
    the CPU has no bfloat16 instructions, emulated by float32 compute rounded once). With
    including_emulation=False, whether this CPU computes in bfloat16 itself (AVX512_BF16)."""
    if including_emulation:
        return True
    return "avx512_bf16" in _C.cpu_features()


def cpu_info():
    """What skiff knows of this CPU (docs/cpu.md): a dict with 'features' (the detected
    instruction-set features), 'best_isa' (the best set skiff's kernels have for it),
    'kernel_isa' (the set they use now, after SKIFF_MAX_CPU_ISA or set_max_cpu_isa),
    'baseline' (the x86-64 level skiff was compiled for) and 'baseline_features'."""
    return {"features": list(_C.cpu_features()), "best_isa": _C.cpu_best_isa(),
            "kernel_isa": _C.cpu_kernel_isa(), "baseline": _C.cpu_baseline(),
            "baseline_features": _C.cpu_baseline_features().split()}


def set_max_cpu_isa(isa):
    """Caps the instruction set of skiff's own kernels: 'generic', 'avx2', 'avx512' or
    'avx512_bf16' (never above the CPU's). oneDNN's kernels take a cap only from the
    environment variable SKIFF_MAX_CPU_ISA, set before skiff is imported."""
    _C.set_max_cpu_isa(isa)


def _cpu_memory(fn, device):
    if device is not None and not str(device).startswith("cpu") \
            and not isinstance(device, CPUPlace):
        raise ValueError(f"{fn}: skiff's tensors live on the CPU; got device {device!r}")


def memory_allocated(device=None):
    """Bytes of tensor memory skiff's allocator holds now on the CPU (tensors made from
    numpy arrays without a copy are the arrays' memory, not counted)."""
    _cpu_memory("memory_allocated", device)
    return _C.memory_allocated()


def max_memory_allocated(device=None):
    """The most bytes of tensor memory held at once since the last
    reset_max_memory_allocated() (or the start)."""
    _cpu_memory("max_memory_allocated", device)
    return _C.max_memory_allocated()


def reset_max_memory_allocated(device=None):
    """Starts max_memory_allocated() over from the bytes held now."""
    _cpu_memory("reset_max_memory_allocated", device)
    _C.reset_max_memory_allocated()


def synchronize(device=None):
    """Waits for the device's work to finish; CPU kernels finish before returning, so there is
    nothing to wait for. Raises TypeError for an accelerator device, as Paddle's CPU build."""
    if device is not None and not str(device).startswith("cpu") \
            and not isinstance(device, CPUPlace):
        raise TypeError(f"synchronize: device should be gpu or xpu, and skiff has neither; "
                        f"got {device!r}")
    return None
