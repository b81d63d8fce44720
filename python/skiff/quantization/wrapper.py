"""ObserveWrapper (Paddle's paddle.quantization.wrapper.ObserveWrapper): a layer with a
quantizer put before (or after) it. QAT and PTQ wrap a customized leaf (QuantConfig.
add_customized_leaf) that has no quantized layer of its own in one, so that the leaf is
quantized as one layer: its activation goes through the config's activation quantizer."""
from ..nn import Layer

__all__ = ["ObserveWrapper"]


class ObserveWrapper(Layer):
    """observed(observer(x, ...)) when ``observe_input`` (the first input quantized, the
    others passed as they are), else observer(observed(...))."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        if not isinstance(observer, Layer) or not isinstance(observed, Layer):
            raise TypeError(f"ObserveWrapper: observer and observed must be Layers, got "
                            f"{type(observer).__name__} and {type(observed).__name__}")
        self._observer, self._observed = observer, observed
        self._observe_input = bool(observe_input)

    def forward(self, *inputs, **kwargs):
        if not self._observe_input:
            return self._observer(self._observed(*inputs, **kwargs))
        if inputs:
            inputs = (self._observer(inputs[0]),) + inputs[1:]
        return self._observed(*inputs, **kwargs)
