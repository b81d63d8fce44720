"""paddle.signal: the short-time Fourier transform (stft) and its inverse (istft)."""
from .stft import istft, stft

__all__ = ["stft", "istft"]

from ..framework.tensor_params import check_exports as _check_exports  # noqa: E402

_check_exports(globals())  # the public functions check their Tensor parameters
