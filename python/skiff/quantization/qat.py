"""QAT and PTQ (Paddle's paddle.quantization): quantize(model) puts quantizers around the
Linear and Conv2D layers a QuantConfig names; after training (QAT, with quanters) or
calibration (PTQ, with observers), convert(model) makes the int8 model.

    q_config = QuantConfig(activation=FakeQuanterWithAbsMaxObserver(moving_rate=0.9),
                           weight=FakeQuanterChannelWiseAbsMaxObserver())
    qat = QAT(q_config)
    model = qat.quantize(model)           # a copy (inplace=False)
    ... train model ...
    int8_model = qat.convert(model)

    ptq = PTQ(QuantConfig(activation=KLObserver(), weight=PerChannelAbsmaxObserver()))
    model = ptq.quantize(model)
    for images, _ in calibration: model(images)
    int8_model = ptq.convert(model)
"""
from .. import _C_ops
import copy

from ..autograd import no_grad
from ..jit import StaticFunction, to_static
from .config import QuantConfig
from .layers import _Quanted, quantized

__all__ = ["QAT", "PTQ"]


def _replace(model, make):
    """``model`` with every sublayer ``make`` returns a replacement for replaced (searched
    below the ones it leaves); the model itself may be replaced."""
    top = make(model)
    if top is not None:
        return top
    for name, child in list(model._sub_layers.items()):
        if child is None:
            continue
        new = _replace(child, make)
        if new is not child:
            setattr(model, name, new)
    return model


def _prepared(model, inplace, memo):
    """``model`` (inplace) or a deep copy of it (``memo``: deepcopy's, filled in), about to
    be changed: its buffers (eager Tensors, which deepcopy cannot copy: quanters' state,
    batch-norm statistics) copied by value, and its to_static forwards made afresh (their
    programs were traced for the layers before the change; deepcopy cannot copy them)."""
    statics = [(layer, layer.__dict__.pop("forward"))
               for layer in model.sublayers(include_self=True)
               if isinstance(layer.__dict__.get("forward"), StaticFunction)]
    out = model
    try:
        if not inplace:
            with no_grad():
                for b in model.buffers():
                    c = _C_ops.assign(b)
                    c.name, c.persistable, c.stop_gradient = b.name, b.persistable, True
                    memo[id(b)] = c
            out = copy.deepcopy(model, memo)
    finally:
        for layer, forward in statics:
            layer.__dict__["forward"] = forward
    for layer, forward in statics:
        to_static(memo.get(id(layer), layer), input_spec=forward.input_spec)
    return out


class _Quantization:
    def __init__(self, config):
        if not isinstance(config, QuantConfig):
            raise TypeError(f"{type(self).__name__}: config must be a QuantConfig, got "
                            f"{type(config).__name__}")
        self._config = config

    def quantize(self, model, inplace=False):
        """The model with quantizers around each layer the config names (a deep copy
        unless ``inplace``)."""
        copies = {}
        model = _prepared(model, inplace, copies)
        config = self._config._rekeyed(copies)  # layers named in the config: their copies
        count = [0]

        def make(layer):
            if isinstance(layer, _Quanted):
                return layer
            form = config._quantized_form(layer)
            if form is not None and form is not layer:
                count[0] += 1
            return form

        model = _replace(model, make)
        if not count[0]:
            raise ValueError(f"{type(self).__name__}.quantize: the model has no layer the "
                             f"config quantizes (Linear and Conv2D by default)")
        return model

    def convert(self, model, inplace=False):
        """The int8 model: each quantized layer with int8 weights and the scales its
        quantizers found (a deep copy unless ``inplace``); in eval mode."""
        model = _prepared(model, inplace, {})
        with no_grad():
            model = _replace(model, lambda layer: quantized(layer)
                             if isinstance(layer, _Quanted) else None)
        model.eval()
        return model


class QAT(_Quantization):
    """Quantization-aware training with the config's quanters."""


class PTQ(_Quantization):
    """Post-training quantization with the config's observers: quantize, run calibration
    batches through the model (eval mode), convert."""

    def quantize(self, model, inplace=False):
        model = super().quantize(model, inplace)
        model.eval()
        return model
