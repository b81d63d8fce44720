"""Automatic mixed precision (Paddle's paddle.amp): auto_cast runs matmul and conv2d in
bfloat16 on the CPU (float32 accumulation), GradScaler scales losses and skips steps with
non-finite gradients, decorate prepares models and optimizers."""
from .auto_cast import (amp_guard, auto_cast, autocast, get_autocast_dtype,
                        is_autocast_enabled, white_list, black_list)
from .decorate import amp_decorate, decorate
from .grad_scaler import AmpScaler, GradScaler, OptimizerState
from ..framework.tensor_params import check_classes as _check_classes

__all__ = ["auto_cast", "autocast", "amp_guard", "decorate", "amp_decorate", "GradScaler",
           "AmpScaler", "OptimizerState", "is_autocast_enabled", "get_autocast_dtype",
           "is_bfloat16_supported", "is_float16_supported", "white_list", "black_list"]

_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument


def is_bfloat16_supported(device=None):
    """True: skiff's CPU kernels for matmul and conv2d take bfloat16."""
    return True


def is_float16_supported(device=None):
    """False: skiff has no float16 kernels."""
    return False
