"""Containers of layers and parameters: Sequential, LayerList, LayerDict,
ParameterList and ParameterDict (paddle.nn)."""
import collections
import collections.abc

from ...framework import arguments
from ...framework.param import is_parameter
from ...framework.tensor_params import ANY, accepts
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList", "ParameterDict"]


def _index(i, n, what):
    """Index ``i`` (an int) of a container of ``n`` entries, from 0."""
    i = arguments.integer(what, "index", i)
    if not -n <= i < n:
        raise IndexError(f"{what} index {i} is out of range for {n} entries")
    return i + n if i < 0 else i


def _layers(where, value, kind=Layer, what="Layer"):
    """The entries of ``value`` (an iterable of ``kind``, a LayerList or Sequential among
    them; None: none) as a list."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__") or \
            (isinstance(value, Layer) and not isinstance(value, (LayerList, Sequential))):
        raise arguments.ArgumentTypeError(f"{where}: expected a list of {what}s, got "
                                          f"{type(value).__name__}")
    out = list(value)
    for i, v in enumerate(out):
        if not isinstance(v, kind):
            raise arguments.ArgumentTypeError(f"{where}: entry {i} must be a {what}, got "
                                              f"{type(v).__name__}")
    return out


def _missing(where, key):
    """The KeyError for a key a dict container lacks."""
    return KeyError(f"{where}: no entry {key!r}")


class Sequential(Layer):
    """Calls its layers in order, each on the previous one's output. Built from layers,
    or from (name, layer) pairs / an OrderedDict to name them."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, collections.OrderedDict)):
            layers = tuple(layers[0].items())
        if layers and all(isinstance(l, (list, tuple)) and len(l) == 2 for l in layers):
            for name, layer in layers:
                self.add_sublayer(str(name), layer)
        else:
            for i, layer in enumerate(_layers("Sequential", layers)):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return Sequential(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            if name not in self._sub_layers:
                raise _missing("Sequential", name)
            return self._sub_layers[name]
        keys = list(self._sub_layers)
        return self._sub_layers[keys[_index(name, len(keys), "Sequential")]]

    def __setitem__(self, name, layer):
        if isinstance(name, int):
            name = list(self._sub_layers)[_index(name, len(self), "Sequential")]
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name):
        if isinstance(name, int):
            name = list(self._sub_layers)[_index(name, len(self), "Sequential")]
        del self._sub_layers[str(name)]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer):
        """Adds ``layer`` at the end, named by its position; returns self."""
        self.add_sublayer(str(len(self)), _layers("Sequential.append", [layer])[0])
        return self

    def insert(self, index, layer):
        """Puts ``layer`` before position ``index`` (-len..len); the layers are renamed by
        their positions; returns self."""
        layer = _layers("Sequential.insert", [layer])[0]
        layers = list(self._sub_layers.values())
        n = len(layers)
        if not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index!r} is out of range for {n} "
                             f"layers")
        layers.insert(index + n if index < 0 else index, layer)
        self._sub_layers.clear()
        for i, each in enumerate(layers):
            self._sub_layers[str(i)] = each
        return self

    def extend(self, layers):
        """Appends each of ``layers``; returns self."""
        for layer in layers:
            self.append(layer)
        return self

    @accepts(input=ANY)  # whatever the first layer takes
    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, registered as "0", "1", ... (iterate it in forward)."""

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in _layers("LayerList", sublayers):
            self.append(layer)

    def _renumber(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return self.__class__(layers[idx])
        return layers[_index(idx, len(layers), "LayerList")]

    def __setitem__(self, idx, layer):
        idx = _index(idx, len(self), "LayerList")
        self.add_sublayer(str(idx), layer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_index(idx, len(layers), "LayerList")]
        self._renumber(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(list(self._sub_layers.values()))

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList.insert: expected a Layer, got {type(sublayer).__name__}")
        layers = list(self._sub_layers.values())
        layers.insert(arguments.integer("LayerList.insert", "index", index), sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        for layer in _layers("LayerList.extend", sublayers):
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of named sublayers."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        if not isinstance(key, str) or key not in self._sub_layers:
            raise _missing("LayerDict", key)
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        if not isinstance(key, str) or key not in self._sub_layers:
            raise _missing("LayerDict", key)
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return isinstance(key, str) and key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        """Removes the sublayer ``key`` and returns it."""
        value = self[key]
        del self._sub_layers[key]
        return value

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        items = sublayers.items() if hasattr(sublayers, "items") else sublayers
        if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
            raise arguments.ArgumentTypeError(f"LayerDict.update: expected a dict or (name, "
                                              f"layer) pairs, got {type(sublayers).__name__}")
        for i, pair in enumerate(items):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise arguments.ArgumentTypeError(f"LayerDict.update: entry {i} must be a "
                                                  f"(name, layer) pair, got {pair!r:.40}")
            self.add_sublayer(*pair)


class ParameterList(Layer):
    """A list of parameters, registered as "0", "1", ..."""

    def __init__(self, parameters=None):
        super().__init__()
        for p in _layers("ParameterList", parameters, object, "Parameter"):
            self.append(p)

    def __getitem__(self, idx):
        params = list(self._parameters.values())
        return params[_index(idx, len(params), "ParameterList")]

    def __setitem__(self, idx, param):
        idx = _index(idx, len(self), "ParameterList")
        self.add_parameter(str(idx), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        if not is_parameter(parameter):
            raise TypeError(f"ParameterList.append: expected a Parameter, got "
                            f"{type(parameter).__name__}")
        self.add_parameter(str(len(self)), parameter)
        return self


class ParameterDict(Layer):
    """Parameters registered under string keys, in insertion order; built from a mapping
    or from (key, parameter) pairs."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        if not isinstance(key, str) or key not in self._parameters:
            raise _missing("ParameterDict", key)
        return self._parameters[key]

    def __setitem__(self, key, param):
        if not is_parameter(param):
            raise TypeError(f"ParameterDict: expected a Parameter for key {key!r}, got "
                            f"{type(param).__name__}")
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def update(self, parameters):
        """Adds (or replaces) the parameters of a mapping or of (key, parameter) pairs."""
        if isinstance(parameters, (collections.abc.Mapping, ParameterDict)):
            items = list(parameters.items())
        elif isinstance(parameters, collections.abc.Iterable) and \
                not isinstance(parameters, (str, bytes)):
            items = list(parameters)
        else:
            raise TypeError(f"ParameterDict.update: expected a mapping or (key, parameter) "
                            f"pairs, got {type(parameters).__name__}")
        for i, kv in enumerate(items):
            if not isinstance(kv, (list, tuple)) or len(kv) != 2:
                raise ValueError(f"ParameterDict.update: entry {i} is not a (key, parameter) "
                                 f"pair: {kv!r:.40}")
            self[kv[0]] = kv[1]

    def items(self):
        return self._parameters.items()

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()
