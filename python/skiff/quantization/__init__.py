"""Quantization (Paddle's paddle.quantization): fake-quant ops with straight-through
gradients, observers for post-training quantization, quanters for quantization-aware
training, QuantConfig, QAT and PTQ. See docs/quantization.md."""
from . import functional, observers, quanters, wrapper
from .config import QuantConfig, SingleLayerConfig
from .functional import dequantize_linear, fake_quantize, quantize_linear
from .qat import PTQ, QAT
from .wrapper import ObserveWrapper

__all__ = ["QuantConfig", "SingleLayerConfig", "QAT", "PTQ", "ObserveWrapper", "functional",
           "observers", "quanters", "wrapper",
           "fake_quantize", "quantize_linear", "dequantize_linear"]

from ..framework.tensor_params import check_classes as _check_classes  # noqa: E402
from ..framework.tensor_params import check_exports as _check_exports  # noqa: E402

_check_exports(globals(), tensors=False)  # a failed call names the argument of the wrong kind
_check_classes(globals(), ("__init__",))  # and so does a failed construction
