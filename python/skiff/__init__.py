"""skiff: a deep learning system whose models are programs run by a C++ interpreter.
The API follows PaddlePaddle 2.x: code written for Paddle runs after
``import skiff as paddle``. Eager mode is the default."""
from . import _C
from ._C import Error, OutOfMemoryError, Tensor
from .framework.dtype import (DType as dtype, bfloat16, bool_ as bool, complex64, complex128,
                              float16, float32, float64, int8, int16, int32, int64, uint8)
from .framework.mode import disable_static, enable_static, in_dynamic_mode
from .framework.dtype import (double, float_ as float, get_default_dtype, half, int_ as int,
                              long, set_default_dtype)
from .framework.dtype_limits import finfo, iinfo
from .framework.random import manual_seed, seed
from .tensor import *  # noqa: F401,F403
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled
from .framework.param import ParamAttr, create_parameter
from .framework.size import Size
from .framework.lazy_init import LazyGuard
from .framework.mmap_storage import MmapStorage
from .framework.io import load, save
from . import io, metric, vision
from . import nn
from . import optimizer, regularizer
from .hapi import Model, callbacks, summary
from . import static
from . import jit
from . import onnx
from .linalg import cholesky, eigvalsh, inverse  # also binds skiff.linalg
from . import fft, signal
from .static import CPUPlace, get_flags, set_flags
from . import amp, board, device, distribution, geometric, quantization, sparse, text, utils
from . import base
from .device import get_device, set_device
from .io import batch
from .utils.signals import disable_signal_handler
from . import compat
from .compat import disable_compat, enable_compat

__version__ = "0.1.0"
