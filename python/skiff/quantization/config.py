"""QuantConfig: which quantizer each layer's activation (its input) and weight get.
Quantizers given here are prototypes: every quantized layer gets its own copy."""
from ..framework.arguments import ArgumentTypeError
from ..nn import Conv2D, Layer, Linear
from .layers import QuantedConv2D, QuantedLinear

__all__ = ["QuantConfig", "SingleLayerConfig"]

DEFAULT_TYPES = (Linear, Conv2D)


def _shown(quantizer):
    text = getattr(quantizer, "_prototype_text", None)
    return text() if callable(text) else str(quantizer)


class SingleLayerConfig:
    """The ``activation`` and ``weight`` quantizer prototypes (or None) of one layer."""

    def __init__(self, activation=None, weight=None):
        self._activation, self._weight = activation, weight

    @property
    def activation(self):
        return self._activation

    @property
    def weight(self):
        return self._weight

    def __str__(self):
        return f"activation: {_shown(self._activation)}\nweight: {_shown(self._weight)}"


def _layer_type(where, value, what):
    if not (isinstance(value, type) and issubclass(value, Layer)):
        raise ArgumentTypeError(f"QuantConfig.{where}: {what} must be a subclass of Layer, "
                                f"got {value!r}")
    return value


class QuantConfig:
    """``activation`` and ``weight`` (observers or quanters, or None: left float) for every
    layer of a quantizable type (Linear, Conv2D and the sources of add_qat_layer_mapping),
    unless a layer's name (add_name_config, add_layer_config) or its type (add_type_config)
    says otherwise, in that order. Customized leaves are quantized whole or not at all."""

    def __init__(self, activation=None, weight=None):
        self._global = (activation, weight)
        self._by_name, self._by_type = {}, {}
        self._customized_mapping, self._leaves = {}, []

    def add_layer_config(self, layer, activation=None, weight=None):
        """Quantizers for ``layer`` (or each of a list of layers), kept by its full_name(),
        so they hold for the layer's copy in a copied model too."""
        for one in layer if isinstance(layer, (list, tuple)) else [layer]:
            if not isinstance(one, Layer):
                raise ArgumentTypeError(f"QuantConfig.add_layer_config: layer must be a "
                                        f"Layer or a list of Layers, got {one!r}")
            self.add_name_config(one.full_name(), activation, weight)

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Quantizers for the layers whose full_name() is ``layer_name`` (or in a list)."""
        for one in layer_name if isinstance(layer_name, (list, tuple)) else [layer_name]:
            if not isinstance(one, str):
                raise ArgumentTypeError(f"QuantConfig.add_name_config: layer_name must be a "
                                        f"str or a list of str, got {one!r}")
            self._by_name[one] = (activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Quantizers for the layers of ``layer_type`` (or of a list of types)."""
        for one in layer_type if isinstance(layer_type, (list, tuple)) else [layer_type]:
            self._by_type[_layer_type("add_type_config", one, "layer_type")] = (activation,
                                                                               weight)

    def add_qat_layer_mapping(self, source, target):
        """QAT replaces layers of type ``source`` by ``target(layer, SingleLayerConfig)``;
        the target makes its quantizers with ``config.weight._instance(layer)``."""
        source = _layer_type("add_qat_layer_mapping", source, "source")
        self._customized_mapping[source] = _layer_type("add_qat_layer_mapping", target,
                                                       "target")

    def add_customized_leaf(self, layer_type):
        """Layers of ``layer_type`` are leaves: none of their sublayers is quantized."""
        self._leaves.append(_layer_type("add_customized_leaf", layer_type, "layer_type"))

    @property
    def customized_leaves(self):
        return self._leaves

    @property
    def default_qat_layer_mapping(self):
        return {Linear: QuantedLinear, Conv2D: QuantedConv2D}

    @property
    def qat_layer_mappings(self):
        return {**self.default_qat_layer_mapping, **self._customized_mapping}

    @property
    def global_config(self):
        """The global SingleLayerConfig, or None when neither quantizer is set."""
        return None if self._global == (None, None) else SingleLayerConfig(*self._global)

    def _prototypes(self, layer):
        """(activation, weight) prototypes for ``layer``, or None when it is not to be
        quantized."""
        full_name = getattr(layer, "full_name", None)
        config = self._by_name.get(full_name()) if callable(full_name) else None
        if config is None:
            config = next((c for t, c in self._by_type.items() if isinstance(layer, t)), None)
        if config is None and isinstance(layer, DEFAULT_TYPES + tuple(self._customized_mapping)):
            config = self._global
        if config is None or config == (None, None):
            return None
        return config

    def _quantizers(self, layer):
        """(activation quantizer, weight quantizer) made for ``layer``, or None when it is
        not to be quantized."""
        config = self._prototypes(layer)
        if config is None:
            return None
        return tuple(q._new_instance(layer) if q is not None else None for q in config)

    def _customized_target(self, layer):
        """The add_qat_layer_mapping target for ``layer``'s type, or None."""
        return self._customized_mapping.get(type(layer))

    def _is_leaf(self, layer):
        return isinstance(layer, tuple(self._leaves))

    def __str__(self):
        glob = self.global_config
        text = f"Global config:\n{glob}\n"
        if self._by_type:
            shown = {t: SingleLayerConfig(*c) for t, c in self._by_type.items()}
            text += f"Layer type config:\n{shown}\n"
        if self._by_name:
            shown = {n: SingleLayerConfig(*c) for n, c in self._by_name.items()}
            text += f"Layer prefix config: \n{shown}\n"
        return text

    def __repr__(self):
        return f"QuantConfig(activation={self._global[0]!r}, weight={self._global[1]!r})"
