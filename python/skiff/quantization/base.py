"""What observers and quanters share: each is a Layer (so its state is saved with the
model) made per quantized layer from the prototype a QuantConfig holds, and gives the
grid its scales: symmetric, scale = threshold / (2**(bits - 1) - 1), zero point 0."""
import numpy as np

from ..nn import Layer
from ..tensor.creation import to_tensor
from ..nn import Linear

__all__ = ["BaseQuanter"]


class BaseQuanter(Layer):
    """A quantizer of one tensor of one layer: its bit length, its channel axis (-1: one
    scale for the tensor) and, once it has seen data, its thresholds (the largest
    magnitude it keeps on the grid). ``_new_instance(layer)`` makes the quantizer of
    ``layer``'s tensor from this prototype's arguments."""

    def __init__(self, quant_bits=8, quant_axis=-1):
        super().__init__()
        if not isinstance(quant_bits, int) or not 2 <= quant_bits <= 16:
            raise ValueError(f"{type(self).__name__}: quant_bits must be an integer in [2, 16], "
                             f"got {quant_bits!r}")
        self._quant_bits, self._quant_axis = quant_bits, quant_axis
        self._args = {}

    def _remember(self, **args):
        """Records the constructor's arguments, from which _new_instance makes copies."""
        self._args = args

    def _new_instance(self, layer):
        return type(self)(**self._args)

    def _instance(self, layer):
        """The quantizer of ``layer``'s tensor made from this prototype (the name Paddle's
        quanter factories give it, which custom QAT layers call)."""
        return self._new_instance(layer)

    def extra_repr(self):
        """The constructor's arguments, as Paddle's quanter factories print them."""
        return ",".join(f"{key}={value}" for key, value in self._args.items())

    def bit_length(self):
        return self._quant_bits

    def quant_axis(self):
        return self._quant_axis

    @property
    def quant_max(self):
        return 2 ** (self._quant_bits - 1) - 1

    @property
    def quant_min(self):
        return -(2 ** (self._quant_bits - 1))

    def thresholds(self):
        """numpy float32: the largest magnitude kept (one, or one per channel); a
        RuntimeError when the quantizer has seen no data."""
        raise NotImplementedError

    def scales(self):
        """The grid's step (threshold / quant_max), a float32 Tensor: [1] or [channels]."""
        t = np.maximum(np.asarray(self.thresholds(), np.float32).reshape(-1),
                       np.float32(1e-8))  # all-zero data: the smallest grid, not a 0 scale
        return to_tensor(t / np.float32(self.quant_max), stop_gradient=True)

    def zero_points(self):
        return None  # symmetric

    def _no_data(self):
        return RuntimeError(f"{type(self).__name__}: no data observed yet; run the quantized "
                            f"model on calibration data (PTQ) or train it (QAT) before "
                            f"convert()")


def channel_axis(layer, axis):
    """The output-channel axis of ``layer``'s weight when ``axis`` is None: 1 for Linear
    ([in, out]), 0 for convolutions ([out, in, kh, kw])."""
    if axis is not None:
        return int(axis)
    return 1 if isinstance(layer, Linear) else 0
