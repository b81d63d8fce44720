"""paddle.fft: discrete Fourier transforms (fft, rfft, hfft and their inverses in 1-D,
2-D and N-D) and their sample frequencies and shifts, computed by skiff's own kernels."""
from .frequencies import fftfreq, fftshift, ifftshift, rfftfreq
from .transforms import (fft, fft2, fftn, hfft, hfft2, hfftn, ifft, ifft2, ifftn, ihfft, ihfft2,
                         ihfftn, irfft, irfft2, irfftn, rfft, rfft2, rfftn)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2",
           "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

from ..framework.tensor_params import check_exports as _check_exports  # noqa: E402

_check_exports(globals())  # the public functions check their Tensor parameters
