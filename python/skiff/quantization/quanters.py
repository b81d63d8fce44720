"""Quanters (quantization-aware training): in training they update their threshold from
each batch and return the tensor fake-quantized on the grid, so the model learns to live
with int8 rounding; in eval they keep their threshold (Paddle's
paddle.quantization.quanters).

    FakeQuanterWithAbsMaxObserver(moving_rate=0.9)      activations: moving-average abs max
    FakeQuanterChannelWiseAbsMaxObserver()              weights: abs max per output channel

Their state is buffers updated by tensor ops written in place, so a quantized model runs
eagerly, under ``skiff.jit.to_static`` (the program writes the buffers' variables, copied
back after each run) and in static programs, and its state goes into ``state_dict``.
"""
from .. import _C_ops
import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..nn.layer.norm import _running_stat
from .base import BaseQuanter, channel_axis
from .functional import fake_quantize

__all__ = ["FakeQuanterWithAbsMaxObserver", "FakeQuanterChannelWiseAbsMaxObserver"]


def _write(buffer, value):
    """``buffer`` = ``value``, in place."""
    _C_ops.assign(value, out=[buffer])


def _scales(thresholds, quant_max):
    """BaseQuanter.scales() of Tensor thresholds, in tensor ops (the same float32 values)."""
    return T.maximum(thresholds, 1e-8) / float(quant_max)


class FakeQuanterWithAbsMaxObserver(BaseQuanter):
    """One threshold for the tensor: in training, each batch's largest |x| averaged with
    weight ``moving_rate`` on the past (bias-corrected: accum / state, as Paddle's
    moving_average_abs_max); the tensor fake-quantized with it. Buffers: ``_state`` (0
    until data is seen) and ``_accum``."""

    def __init__(self, moving_rate=0.9, bit_length=8, dtype="float32", name=None):
        super().__init__(bit_length)
        if not 0 <= moving_rate < 1:
            raise ValueError(f"FakeQuanterWithAbsMaxObserver: moving_rate must be in [0, 1), "
                             f"got {moving_rate!r}")
        self._remember(name=name, moving_rate=moving_rate, bit_length=bit_length, dtype=dtype)
        self._rate = float(moving_rate)
        self.register_buffer("_state", _running_stat(self, [1], 0.0, None))
        self.register_buffer("_accum", _running_stat(self, [1], 0.0, None))

    def forward(self, x):
        if self.training:
            with no_grad():
                _write(self._state, self._state * self._rate + 1.0)
                _write(self._accum, self._accum * self._rate + T.max(T.abs(x)))
        return fake_quantize(x, _scales(self._accum / self._state, self.quant_max),
                             quant_min=self.quant_min, quant_max=self.quant_max)

    def thresholds(self):
        if float(self._state.numpy()[0]) == 0:
            raise self._no_data()
        return np.float32((self._accum / self._state).numpy()[0])


class FakeQuanterChannelWiseAbsMaxObserver(BaseQuanter):
    """One threshold per index of ``quant_axis`` (None: the layer's output-channel axis):
    the largest |w| of the channel in the current weights; the weights fake-quantized
    per channel. Buffers: ``_max`` (per channel, as many as the layer's weight has; one for
    a prototype) and ``_count`` (batches seen)."""

    def __init__(self, quant_axis=None, bit_length=8, dtype="float32", name=None,
                 channels=1):
        super().__init__(bit_length, quant_axis if quant_axis is not None else 0)
        self._remember(quant_axis=quant_axis, bit_length=bit_length, dtype=dtype)
        self.register_buffer("_max", _running_stat(self, [int(channels)], 0.0, None))
        self.register_buffer("_count", _running_stat(self, [1], 0.0, None))

    def _new_instance(self, layer):
        axis = channel_axis(layer, self._args["quant_axis"])
        return FakeQuanterChannelWiseAbsMaxObserver(axis, self._quant_bits,
                                                    channels=layer.weight.shape[axis])

    def forward(self, w):
        rank = len(w.shape)
        axis = self._quant_axis % rank
        with no_grad():
            top = T.max(T.abs(w), axis=[d for d in range(rank) if d != axis])
            _write(self._max, top)
            _write(self._count, self._count + 1.0)
        return fake_quantize(w, _scales(top, self.quant_max), quant_min=self.quant_min,
                             quant_max=self.quant_max, axis=axis)

    def thresholds(self):
        if float(self._count.numpy()[0]) == 0:
            raise self._no_data()
        return self._max.numpy()
