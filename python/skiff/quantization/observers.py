"""Observers (post-training quantization): they watch the tensors of calibration batches
pass unchanged and choose thresholds from what they saw (Paddle's
paddle.quantization.observers).

    AbsmaxObserver()                 the largest magnitude seen
    MovingAverageAbsmaxObserver()    an exponential average of each batch's largest magnitude
    PerChannelAbsmaxObserver()       per output channel (weights)
    KLObserver()                     the threshold whose int8 histogram is nearest (KL) the
                                     histogram of magnitudes seen (TensorRT's calibration)
"""
import numpy as np

from ..autograd import no_grad
from .base import BaseQuanter, channel_axis

__all__ = ["AbsmaxObserver", "MovingAverageAbsmaxObserver", "PerChannelAbsmaxObserver",
           "KLObserver"]


def _magnitudes(x):
    with no_grad():
        return np.abs(np.asarray(x.numpy(), np.float64))


class AbsmaxObserver(BaseQuanter):
    """Threshold: the largest |x| of every batch seen."""

    def __init__(self, quant_bits=8):
        super().__init__(quant_bits)
        self._remember(quant_bits=quant_bits)
        self._max = None

    def forward(self, x):
        m = float(_magnitudes(x).max(initial=0.0))
        self._max = m if self._max is None else max(self._max, m)
        return x

    def thresholds(self):
        if self._max is None:
            raise self._no_data()
        return np.float32(self._max)


class MovingAverageAbsmaxObserver(BaseQuanter):
    """Threshold: each batch's largest |x| averaged with weight ``moving_rate`` on the
    past (bias-corrected, as Paddle's moving_average_abs_max: accum / state)."""

    def __init__(self, moving_rate=0.9, quant_bits=8):
        super().__init__(quant_bits)
        if not 0 <= moving_rate < 1:
            raise ValueError(f"MovingAverageAbsmaxObserver: moving_rate must be in [0, 1), "
                             f"got {moving_rate!r}")
        self._remember(moving_rate=moving_rate, quant_bits=quant_bits)
        self._rate, self._state, self._accum = float(moving_rate), 0.0, 0.0

    def forward(self, x):
        self._state = self._rate * self._state + 1.0
        self._accum = self._rate * self._accum + float(_magnitudes(x).max(initial=0.0))
        return x

    def thresholds(self):
        if self._state == 0:
            raise self._no_data()
        return np.float32(self._accum / self._state)


class PerChannelAbsmaxObserver(BaseQuanter):
    """Thresholds: the largest |x| of each index of ``quant_axis`` (None: the layer's
    output-channel axis), for weights."""

    def __init__(self, quant_axis=None, quant_bits=8):
        super().__init__(quant_bits, quant_axis if quant_axis is not None else 0)
        self._remember(quant_axis=quant_axis, quant_bits=quant_bits)
        self._max = None

    def _new_instance(self, layer):
        return PerChannelAbsmaxObserver(channel_axis(layer, self._args["quant_axis"]),
                                        self._quant_bits)

    def forward(self, x):
        a = _magnitudes(x)
        axis = self._quant_axis % a.ndim
        m = a.max(axis=tuple(d for d in range(a.ndim) if d != axis), initial=0.0)
        self._max = m if self._max is None else np.maximum(self._max, m)
        return x

    def thresholds(self):
        if self._max is None:
            raise self._no_data()
        return self._max.astype(np.float32)


class KLObserver(BaseQuanter):
    """Threshold: of the candidate cut-offs of the histogram of |x| (``bins`` bins over
    [0, the largest |x| seen]; the range widens by merging bins as larger values come),
    the one whose distribution, squeezed onto 2**(bits-1) levels and spread back, is
    nearest the observed one in Kullback-Leibler divergence (values beyond the cut-off
    counted in its last bin). Exact zeros are left out of the histogram: 0 is quantized
    exactly at any cut-off, and the spike of them a ReLU makes would otherwise pull the
    divergence toward cut-offs that clip the values that matter (a W3 model lost 3.6% of
    its accuracy that way; 0.1-0.2% without the zeros)."""

    def __init__(self, bins=2048, quant_bits=8):
        super().__init__(quant_bits)
        if not isinstance(bins, int) or bins < 2 ** quant_bits:
            raise ValueError(f"KLObserver: bins must be an integer of at least "
                             f"{2 ** quant_bits}, got {bins!r}")
        self._remember(bins=bins, quant_bits=quant_bits)
        self._bins, self._hist, self._top = bins, None, 0.0

    def forward(self, x):
        a = _magnitudes(x).reshape(-1)
        a = a[a != 0]
        top = float(a.max(initial=0.0))
        if self._hist is None:
            self._top = top if top > 0 else 1e-8
            self._hist = np.zeros(self._bins, np.float64)
        while top > self._top:  # widen the range: merge pairs of bins
            merged = self._hist.reshape(-1, 2).sum(axis=1)
            self._hist = np.concatenate([merged, np.zeros(self._bins - len(merged))])
            self._top *= 2
        self._hist += np.histogram(a, bins=self._bins, range=(0.0, self._top))[0]
        return x

    def thresholds(self):
        if self._hist is None:
            raise self._no_data()
        return np.float32(kl_threshold(self._hist, self._top, self.quant_max + 1))


def kl_threshold(hist, top, levels):
    """The cut-off (in |x| units) of histogram ``hist`` over [0, top] whose distribution on
    ``levels`` levels is nearest (KL) the observed one."""
    bins = len(hist)
    if hist.sum() == 0:
        return top
    best, best_kl = bins, np.inf
    for cut in range(levels, bins + 1):
        p = hist[:cut].copy()
        p[-1] += hist[cut:].sum()
        # squeeze the cut bins onto `levels` levels, then spread each level's count evenly
        # over the nonzero bins it covers
        edges = np.linspace(0, cut, levels + 1)
        index = np.minimum(np.searchsorted(edges, np.arange(cut), side="right") - 1, levels - 1)
        nonzero = (hist[:cut] != 0).astype(np.float64)
        level_sum = np.bincount(index, weights=hist[:cut], minlength=levels)
        level_nonzero = np.bincount(index, weights=nonzero, minlength=levels)
        q = np.where(nonzero > 0, level_sum[index] / np.maximum(level_nonzero[index], 1), 0.0)
        kl = _kl(p, q)
        if kl < best_kl:
            best, best_kl = cut, kl
    return (best + 0.5) * top / bins


def _kl(p, q):
    p = p / p.sum()
    total = q.sum()
    if total == 0:
        return np.inf
    q = q / total
    mask = p > 0
    if np.any(q[mask] == 0):
        return np.inf
    return float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
