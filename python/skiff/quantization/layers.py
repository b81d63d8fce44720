"""The layers a quantized model is made of. QuantedLinear / QuantedConv2D wrap a float
layer's parameters with quantizers (observers while calibrating, quanters while training);
convert() turns them into QuantizedLinear / QuantizedConv2D, which hold int8 weights with
their scales and the activation's scale."""
import numpy as np

from ..nn import Conv2D, Layer, Linear
from ..nn import functional as F
from .functional import dequantize_linear, fake_quantize, quantize_linear

__all__ = ["QuantedLinear", "QuantedConv2D", "QuantizedLinear", "QuantizedConv2D", "wrap",
           "quantized", "weight_bytes"]


class _Quanted(Layer):
    def __init__(self, layer, activation, weight):
        super().__init__()
        self.weight, self.bias = layer.weight, layer.bias
        self.activation_quanter, self.weight_quanter = activation, weight

    def forward(self, x):
        if self.activation_quanter is not None:
            x = self.activation_quanter(x)
        w = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        return self._compute(x, w)


class QuantedLinear(_Quanted):
    def _compute(self, x, w):
        return F.linear(x, w, self.bias)


class QuantedConv2D(_Quanted):
    def __init__(self, layer, activation, weight):
        if layer._padding_mode != "zeros":
            raise ValueError(f"quantization: Conv2D with padding_mode "
                             f"{layer._padding_mode!r} is not supported (zeros only)")
        super().__init__(layer, activation, weight)
        self._conv = (layer._stride, layer._padding, layer._dilation, layer._groups,
                      layer._data_format)

    def _compute(self, x, w):
        stride, padding, dilation, groups, data_format = self._conv
        return F.conv2d(x, w, self.bias, stride, padding, dilation, groups, data_format)


def wrap(layer, activation, weight):
    """The quanted form of a Linear or Conv2D."""
    if isinstance(layer, Linear):
        return QuantedLinear(layer, activation, weight)
    if isinstance(layer, Conv2D):
        return QuantedConv2D(layer, activation, weight)
    raise TypeError(f"quantization: {type(layer).__name__} layers cannot be quantized "
                    f"(Linear and Conv2D can)")


class _Quantized(Layer):
    """int8 weights (``weight_int8``, per output channel scales ``weight_scale`` along
    ``weight_axis``) and the activation's scale (``activation_scale``; None: the input stays
    float). Computed as the int8 model computes: the input on its int8 grid, the weights
    from their integers."""

    def __init__(self, quanted):
        super().__init__()
        self.bias = quanted.bias
        w = quanted.weight
        wq = quanted.weight_quanter
        if wq is None:
            raise ValueError("quantization: convert() needs a weight quantizer for every "
                             "quantized layer (QuantConfig(weight=...))")
        wq(w)  # (observers: the weights are data too)
        self.weight_axis = wq.quant_axis() if wq.quant_axis() >= 0 else 0
        scale = wq.scales()
        self.register_buffer("weight_scale", scale)
        self.register_buffer("weight_int8", quantize_linear(w, scale, axis=self.weight_axis,
                                                             dtype="int8"))
        aq = quanted.activation_quanter
        self._bits = None
        if aq is not None:
            self.register_buffer("activation_scale", aq.scales())
            self._bits = (aq.quant_min, aq.quant_max)

    def _activation(self, x):
        if self._bits is None:
            return x
        return fake_quantize(x, self.activation_scale, quant_min=self._bits[0],
                             quant_max=self._bits[1])

    def forward(self, x):
        x = self._activation(x)
        w = dequantize_linear(self.weight_int8, self.weight_scale, axis=self.weight_axis)
        return self._compute(x, w)


class QuantizedLinear(_Quantized):
    def _compute(self, x, w):
        return F.linear(x, w, self.bias)


class QuantizedConv2D(_Quantized):
    def __init__(self, quanted):
        super().__init__(quanted)
        self._conv = quanted._conv

    def _compute(self, x, w):
        stride, padding, dilation, groups, data_format = self._conv
        return F.conv2d(x, w, self.bias, stride, padding, dilation, groups, data_format)


def quantized(quanted):
    """The converted (int8) form of a quanted layer."""
    kind = QuantizedLinear if isinstance(quanted, QuantedLinear) else QuantizedConv2D
    return kind(quanted)


def weight_bytes(model):
    """Bytes of the int8 weights of a converted model (a check of what convert made)."""
    return sum(int(np.prod(layer.weight_int8.shape)) for layer in model.sublayers()
               if isinstance(layer, _Quantized))

