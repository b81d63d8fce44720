"""Global switches (Paddle's set_flags / get_flags). ``check_nan_inf``: the executor
stops at the first op whose output holds NaN or Inf, naming the op, the output and
the line that created the op. Paddle's other common flags are taken, stored and returned
with Paddle's defaults, but change nothing in skiff (they tune CUDA, cuDNN, oneDNN, the
allocator or Paddle's own compilers, which skiff does not have): _STORED lists them."""
from .. import _C
from ..framework.arguments import ArgumentTypeError, flag

__all__ = ["set_flags", "get_flags"]

_FLAGS = {"check_nan_inf": (_C.check_nan_inf, _C.set_check_nan_inf)}

# Flags with no meaning on skiff: name -> the value Paddle starts with.
_STORED = {"cudnn_deterministic": False, "embedding_deterministic": 0,
           "cudnn_exhaustive_search": False, "conv_workspace_size_limit": 512,
           "cudnn_batchnorm_spatial_persistent": False, "use_mkldnn": False,
           "use_cinn": False, "enable_pir_api": True, "benchmark": False,
           "eager_delete_tensor_gb": 0.0, "fraction_of_gpu_memory_to_use": 0.92,
           "allocator_strategy": "auto_growth", "initial_gpu_memory_in_mb": 0,
           "reallocate_gpu_memory_in_mb": 0, "check_nan_inf_level": 0,
           "call_stack_level": 1, "use_autotune": False, "max_inplace_grad_add": 0,
           "enable_cublas_tensor_op_math": False, "gemm_use_half_precision_compute_type": False,
           "print_ir": False, "low_precision_op_list": 0, "use_stride_kernel": True}
for _name, _default in _STORED.items():
    _FLAGS[_name] = ((lambda n: lambda: _STORED[n])(_name),
                     (lambda n: lambda v: _STORED.__setitem__(n, v))(_name))


def _key(fn, name):
    """The flag ``name`` (with or without its FLAGS_ prefix) names, for ``fn``."""
    if not isinstance(name, str):
        raise ArgumentTypeError(f"{fn}: a flag name must be a str, got {type(name).__name__}")
    key = name[len("FLAGS_"):] if name.startswith("FLAGS_") else name
    if key not in _FLAGS:
        raise ValueError(f"unknown flag '{name}' (skiff has: "
                         f"{', '.join('FLAGS_' + k for k in _FLAGS)})")
    return key


def set_flags(flags):
    """Sets flags from a dict {'FLAGS_check_nan_inf': True} (the prefix is optional)."""
    if not isinstance(flags, dict):
        raise ArgumentTypeError(f"set_flags: flags must be a dict of flag names and values, "
                                f"got {type(flags).__name__}")
    for name, value in flags.items():
        key = _key("set_flags", name)
        stored = _STORED.get(key)
        if stored is None or isinstance(stored, bool):
            value = flag("set_flags", str(name), value)
        elif not isinstance(value, type(stored)) and not (
                isinstance(stored, float) and isinstance(value, int)):
            raise ArgumentTypeError(f"set_flags: {name} takes a {type(stored).__name__}, got "
                                    f"{type(value).__name__}")
        _FLAGS[key][1](value)


def get_flags(flags):
    """The values of the named flags (a name or a list of names), keyed as given."""
    if not isinstance(flags, (str, list, tuple)):
        raise ArgumentTypeError(f"get_flags: flags must be a flag name or a list of them, got "
                                f"{type(flags).__name__}")
    names = [flags] if isinstance(flags, str) else list(flags)
    return {name: _FLAGS[_key("get_flags", name)][0]() for name in names}
