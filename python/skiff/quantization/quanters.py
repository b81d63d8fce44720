"""Quanters (quantization-aware training): in training they update their threshold from
each batch and return the tensor fake-quantized on the grid, so the model learns to live
with int8 rounding; in eval they keep their threshold (Paddle's
paddle.quantization.quanters).

    FakeQuanterWithAbsMaxObserver(moving_rate=0.9)      activations: moving-average abs max
    FakeQuanterChannelWiseAbsMaxObserver()              weights: abs max per output channel
"""
import numpy as np

from ..autograd import no_grad
from .base import BaseQuanter, channel_axis
from .functional import fake_quantize

__all__ = ["FakeQuanterWithAbsMaxObserver", "FakeQuanterChannelWiseAbsMaxObserver"]


class FakeQuanterWithAbsMaxObserver(BaseQuanter):
    """One threshold for the tensor: in training, each batch's largest |x| averaged with
    weight ``moving_rate`` on the past (bias-corrected: accum / state, as Paddle's
    moving_average_abs_max); the tensor fake-quantized with it."""

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        super().__init__(bit_length)
        if not 0 <= moving_rate < 1:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: moving_rate must be in [0, 1), "
                             f"got {moving_rate!r}")
        self._remember(moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)
        self._rate = float(moving_rate)
        self._state = self._accum = 0.0

    def forward(self, x):
        if self.training:
            with no_grad():
                top = float(np.abs(x.numpy()).max(initial=0.0))
            self._state = self._rate * self._state + 1.0
            self._accum = self._rate * self._accum + top
        return fake_quantize(x, self.scales(), quant_min=self.quant_min,
                             quant_max=self.quant_max)

    def thresholds(self):
        if self._state == 0:
            raise self._no_data()
        return np.float32(self._accum / self._state)


class FakeQuanterChannelWiseAbsMaxObserver(BaseQuanter):
    """One threshold per index of ``quant_axis`` (None: the layer's output-channel axis):
    the largest |w| of the channel in the current weights; the weights fake-quantized
    per channel."""

    def __init__(self, quant_axis=None, bit_length=8, dtype="float32", name=None):
        super().__init__(bit_length, quant_axis if quant_axis is not None else 0)
        self._remember(quant_axis=quant_axis, bit_length=bit_length, dtype=dtype)
        self._max = None

    def _new_instance(self, layer):
        return FakeQuanterChannelWiseAbsMaxObserver(
            channel_axis(layer, self._args["quant_axis"]), self._quant_bits)

    def forward(self, w):
        with no_grad():
            a = np.abs(w.numpy())
        axis = self._quant_axis % a.ndim
        self._max = a.max(axis=tuple(d for d in range(a.ndim) if d != axis), initial=0.0)
        return fake_quantize(w, self.scales(), quant_min=self.quant_min,
                             quant_max=self.quant_max, axis=axis)

    def thresholds(self):
        if self._max is None:
            raise self._no_data()
        return self._max.astype(np.float32)
