"""QuantConfig: which quantizer each layer's activation (its input) and weight get.
Quantizers given here are prototypes: every quantized layer gets its own copy."""
from ..nn import Conv2D, Linear

__all__ = ["QuantConfig"]

DEFAULT_TYPES = (Linear, Conv2D)


class QuantConfig:
    """``activation`` and ``weight`` (observers or quanters, or None: left float) for every
    Linear and Conv2D, unless add_layer_config or add_type_config say otherwise (a layer's
    own config first, then its type's, then these)."""

    def __init__(self, activation=None, weight=None):
        self._global = (activation, weight)
        self._by_layer, self._by_type = {}, {}

    def add_layer_config(self, layer, activation=None, weight=None):
        for one in layer if isinstance(layer, (list, tuple)) else [layer]:
            self._by_layer[id(one)] = (activation, weight)

    def add_type_config(self, layer_type, activation=None, weight=None):
        for one in layer_type if isinstance(layer_type, (list, tuple)) else [layer_type]:
            self._by_type[one] = (activation, weight)

    def _rekeyed(self, copies):
        """This config for a deep copy of the model (``copies``: deepcopy's memo, which
        maps each original object's id to its copy)."""
        out = QuantConfig(*self._global)
        out._by_type = dict(self._by_type)
        out._by_layer = {id(copies.get(key, None)) if key in copies else key: value
                         for key, value in self._by_layer.items()}
        return out

    def _quantizers(self, layer):
        """(activation quantizer, weight quantizer) made for ``layer``, or None when it is
        not to be quantized."""
        config = self._by_layer.get(id(layer))
        if config is None:
            config = next((c for t, c in self._by_type.items() if isinstance(layer, t)), None)
        if config is None and isinstance(layer, DEFAULT_TYPES):
            config = self._global
        if config is None or config == (None, None):
            return None
        return tuple(q._new_instance(layer) if q is not None else None for q in config)

    def __repr__(self):
        return f"QuantConfig(activation={self._global[0]!r}, weight={self._global[1]!r})"
