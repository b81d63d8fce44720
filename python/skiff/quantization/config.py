"""QuantConfig: which quantizer each layer's activation (its input) and weight get, which
layers quantization treats as leaves, and which quantized layer replaces each layer type.
Quantizers given here are prototypes: every quantized layer gets its own copy."""
from ..nn import Conv2D, Layer, Linear
from .layers import QuantedConv2D, QuantedLinear, wrap
from .wrapper import ObserveWrapper

__all__ = ["QuantConfig", "SingleLayerConfig"]

DEFAULT_TYPES = (Linear, Conv2D)


class SingleLayerConfig:
    """The quantizer prototypes of one layer: ``activation`` and ``weight`` (None: left
    float). A QAT layer mapping's target is made as ``target(layer, config)`` and makes its
    quantizers with ``config.weight._instance(layer)``."""

    def __init__(self, activation, weight):
        self.activation, self.weight = activation, weight

    def __str__(self):
        return f"activation: {self.activation}\nweight: {self.weight}"


def _layer_type(fn, param, value):
    """``value`` when it is a subclass of Layer; TypeError naming ``fn`` otherwise."""
    if not (isinstance(value, type) and issubclass(value, Layer)):
        raise TypeError(f"QuantConfig.{fn}: {param} must be a subclass of paddle.nn.Layer, "
                        f"got {value!r}")
    return value


def _listed(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class QuantConfig:
    """``activation`` and ``weight`` (observers or quanters, or None: left float) for every
    Linear and Conv2D, unless a layer's own config (add_layer_config), its full name's
    (add_name_config) or its type's (add_type_config) says otherwise, in that order."""

    def __init__(self, activation=None, weight=None):
        self._global = SingleLayerConfig(activation, weight)
        self._by_layer, self._by_name, self._by_type = {}, {}, {}
        self._layer_names = {}  # id of a layer in _by_layer -> its full name, for printing
        self._leaves, self._qat_mapping = [], {}

    def add_layer_config(self, layer, activation=None, weight=None):
        """Quantizers for these layers (one or a list): the highest priority."""
        for one in _listed(layer):
            if not isinstance(one, Layer):
                raise TypeError(f"QuantConfig.add_layer_config: layer must be a Layer or a "
                                f"list of them, got {type(one).__name__}")
            self._by_layer[id(one)] = SingleLayerConfig(activation, weight)
            self._layer_names[id(one)] = one.full_name()

    def add_name_config(self, layer_name, activation=None, weight=None):
        """Quantizers for the layers of these full names (Layer.full_name(); one or a
        list): below add_layer_config, above add_type_config."""
        for one in _listed(layer_name):
            if not isinstance(one, str):
                raise TypeError(f"QuantConfig.add_name_config: layer_name must be a str or a "
                                f"list of them, got {type(one).__name__}")
            self._by_name[one] = SingleLayerConfig(activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        """Quantizers for the layers of these types (one or a list): below the others."""
        for one in _listed(layer_type):
            self._by_type[_layer_type("add_type_config", "layer_type", one)] = \
                SingleLayerConfig(activation, weight)

    def add_qat_layer_mapping(self, source, target):
        """Layers of type ``source`` that get quantizers become ``target(layer, config)``
        (config: a SingleLayerConfig) in place of the default quantized layer."""
        self._qat_mapping[_layer_type("add_qat_layer_mapping", "source", source)] = \
            _layer_type("add_qat_layer_mapping", "target", target)

    def add_customized_leaf(self, layer_type):
        """Layers of ``layer_type`` are leaves, quantized as one layer and their sublayers
        never: by their QAT layer mapping if they have one, else wrapped in an
        ObserveWrapper with their activation quantizer (their config's or the global)."""
        layer_type = _layer_type("add_customized_leaf", "layer_type", layer_type)
        if layer_type not in self._leaves:
            self._leaves.append(layer_type)

    @property
    def global_config(self):
        """The SingleLayerConfig of every Linear and Conv2D not configured otherwise."""
        return self._global

    @property
    def default_qat_layer_mapping(self):
        """{layer type: the quantized layer that replaces it} built in."""
        return {Linear: QuantedLinear, Conv2D: QuantedConv2D}

    @property
    def qat_layer_mappings(self):
        """The built-in mapping updated with add_qat_layer_mapping's."""
        return {**self.default_qat_layer_mapping, **self._qat_mapping}

    @property
    def customized_leaves(self):
        """The layer types add_customized_leaf declared leaves."""
        return list(self._leaves)

    def _rekeyed(self, copies):
        """This config for a deep copy of the model (``copies``: deepcopy's memo, which
        maps each original object's id to its copy)."""
        out = QuantConfig(self._global.activation, self._global.weight)
        out._by_name, out._by_type = dict(self._by_name), dict(self._by_type)
        out._leaves, out._qat_mapping = list(self._leaves), dict(self._qat_mapping)
        moved = {key: id(copies[key]) if key in copies else key for key in self._by_layer}
        out._by_layer = {moved[key]: value for key, value in self._by_layer.items()}
        out._layer_names = {moved[key]: name for key, name in self._layer_names.items()}
        return out

    def _config_of(self, layer):
        """The SingleLayerConfig that applies to ``layer``, or None."""
        config = self._by_layer.get(id(layer))
        if config is None:
            config = self._by_name.get(layer.full_name())
        if config is None:
            config = next((c for t, c in self._by_type.items() if isinstance(layer, t)), None)
        if config is None and isinstance(layer, DEFAULT_TYPES):
            config = self._global
        return config

    def _quantized_form(self, layer):
        """What replaces ``layer`` in the quantized model: its quantized layer, a leaf
        wrapped with its activation quantizer, the layer itself (a leaf left float: its
        sublayers are not searched), or None (not quantized; its sublayers are searched)."""
        leaf = any(isinstance(layer, t) for t in self._leaves)
        config = self._config_of(layer)
        if config is None and leaf:
            config = self._global
        if config is None or (config.activation, config.weight) == (None, None):
            return layer if leaf else None
        target = next((t for s, t in self._qat_mapping.items() if isinstance(layer, s)), None)
        if target is not None:
            return target(layer, config)
        if leaf and not isinstance(layer, DEFAULT_TYPES):
            if config.activation is None:
                return layer
            return ObserveWrapper(config.activation._new_instance(layer), layer)
        return wrap(layer, *(None if q is None else q._new_instance(layer)
                             for q in (config.activation, config.weight)))

    def __str__(self):
        glob = self._global
        text = "Global config:\n" + (str(glob) if (glob.activation, glob.weight) !=
                                     (None, None) else "None") + "\n"
        if self._by_type:
            text += f"Layer type config:\n{self._by_type}\n"
        if self._by_name or self._by_layer:
            named = {**self._by_name, **{self._layer_names[key]: config
                                         for key, config in self._by_layer.items()}}
            text += f"Layer prefix config: \n{named}\n"
        return text
