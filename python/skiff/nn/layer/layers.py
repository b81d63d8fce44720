"""skiff.nn.Layer: the base of every layer (Paddle's paddle.nn.Layer). It holds
parameters, buffers and sublayers registered by attribute assignment, names them for
state dicts ("fc.weight"), switches train/eval, and runs forward with hooks."""
import collections
import warnings
from collections.abc import Mapping

from ... import _C
from ... import _C_ops
from ..._C import Tensor
from ...autograd import no_grad
from ...framework import arguments, dtype as dt
from ...framework.arguments import ArgumentTypeError, is_tensor, renamed_signature_error
from ...framework.param import (assign_value, create_parameter, is_parameter, snake_case,
                                unique_name)
from ...framework.param import ParamAttr

__all__ = ["Layer"]


def _check_exclusions(excluded_layers, where):
    """excluded_layers as a list of layers and layer classes (None: none)."""
    if excluded_layers is None:
        return []
    items = list(excluded_layers) if isinstance(excluded_layers, (list, tuple)) \
        else [excluded_layers]
    for item in items:
        if not isinstance(item, Layer) and not (isinstance(item, type) and
                                                issubclass(item, Layer)):
            raise ArgumentTypeError(f"Layer.{where}: excluded_layers must be a Layer, a Layer "
                                    f"class or a list of them, got {type(item).__name__}")
    return items


def _low_precision_exclusions(excluded_layers):
    """Paddle's default for bfloat16/float16: every layer but the legacy BatchNorm."""
    if excluded_layers is not None:
        return excluded_layers
    return [cls for cls in _all_subclasses(Layer) if getattr(cls, "_keeps_float32", False)]


def _all_subclasses(cls):
    out = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


def _excluded_set(root, items):
    """The ids of root's layers (root included) that ``items`` names, by identity or
    class."""
    classes = tuple(i for i in items if isinstance(i, type))
    kept = {id(i) for i in items if not isinstance(i, type)}
    for layer in root.sublayers(include_self=True):
        if classes and isinstance(layer, classes):
            kept.add(id(layer))
    return kept


class HookRemoveHelper:
    """Returned by register_forward_*_hook; ``remove()`` unregisters the hook."""

    def __init__(self, hooks, key):
        self._hooks, self._key = hooks, key

    def remove(self):
        self._hooks.pop(self._key, None)


_hook_ids = [0]


def _check_member_name(fn, what, name):
    """A parameter's or buffer's name: a non-empty str without '.' (state_dict's separator)."""
    if not isinstance(name, str):
        raise TypeError(f"{fn}: the {what} name must be a str, got {type(name).__name__}")
    if "." in name or not name:
        raise KeyError(f"{what} name {name!r} must be non-empty and contain no '.'")


class Layer:
    """Base class of layers: subclasses create parameters and sublayers in __init__
    (after ``super().__init__()``) and compute in ``forward``."""

    def __init__(self, name_scope=None, dtype=None):
        d = self.__dict__
        d["training"] = True
        if name_scope is not None and not isinstance(name_scope, str):
            raise ArgumentTypeError(f"{type(self).__name__}: name_scope must be a str or None, "
                                    f"got {type(name_scope).__name__}")
        d["_full_name"] = unique_name.generate(name_scope or snake_case(type(self).__name__))
        # Without a dtype, the default one (skiff.set_default_dtype) when the layer is made,
        # as Paddle's layers take it.
        d["_dtype"] = arguments.dtype(type(self).__name__, dtype) if dtype is not None \
            else dt.get_default_dtype()
        d["_parameters"] = collections.OrderedDict()
        d["_sub_layers"] = collections.OrderedDict()
        d["_buffers"] = collections.OrderedDict()
        d["_non_persistable_buffer_names_set"] = set()
        d["_forward_pre_hooks"] = collections.OrderedDict()
        d["_forward_post_hooks"] = collections.OrderedDict()

    # ---- running ---------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not define forward()")

    def __call__(self, *inputs, **kwargs):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        try:
            outputs = self.forward(*inputs, **kwargs)
        except TypeError as e:  # costs nothing until forward fails
            error = renamed_signature_error(e, self.forward, type(self).__name__ + ".forward")
            if error is None:
                raise
            raise error from None
        if self._forward_post_hooks:
            for hook in list(self._forward_post_hooks.values()):
                result = hook(self, inputs, outputs)
                if result is not None:
                    outputs = result
        return outputs

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)`` runs before forward; a non-None result replaces inputs."""
        _hook_ids[0] += 1
        self._forward_pre_hooks[_hook_ids[0]] = hook
        return HookRemoveHelper(self._forward_pre_hooks, _hook_ids[0])

    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, outputs)`` runs after forward; a non-None result replaces
        the outputs."""
        _hook_ids[0] += 1
        self._forward_post_hooks[_hook_ids[0]] = hook
        return HookRemoveHelper(self._forward_post_hooks, _hook_ids[0])

    def train(self):
        """Training mode for this layer and its sublayers (dropout drops, norms update)."""
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = True
        return self

    def eval(self):
        """Inference mode for this layer and its sublayers."""
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = False
        return self

    def full_name(self):
        """The unique name of this layer ("linear_0"); its parameters' names start with it."""
        return self._full_name

    # ---- registration ----------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A new parameter named after this layer ("linear_0.w_0"); assign it to an
        attribute to register it."""
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        name = attr.name or unique_name.generate(self._full_name + (".b" if is_bias else ".w"))
        return create_parameter(shape, dtype or self._dtype, name, attr, is_bias,
                                default_initializer)

    def add_parameter(self, name, parameter):
        """Registers ``parameter`` (or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise RuntimeError("Layer.__init__() must be called before adding parameters")
        _check_member_name("add_parameter", "parameter", name)
        if parameter is not None and not is_parameter(parameter):
            raise TypeError(f"add_parameter({name!r}): expected a Parameter, got "
                            f"{type(parameter).__name__}")
        self.__dict__.pop(name, None)
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Registers ``sublayer`` (or None) under ``name`` and returns it."""
        if "_sub_layers" not in self.__dict__:
            raise RuntimeError("Layer.__init__() must be called before adding sublayers")
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer({name!r}): expected a Layer, got "
                            f"{type(sublayer).__name__}")
        self.__dict__.pop(name, None)
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """Registers a Tensor the layer keeps but does not train (e.g. running statistics);
        persistable buffers go into state_dict."""
        if "_buffers" not in self.__dict__:
            raise RuntimeError("Layer.__init__() must be called before adding buffers")
        _check_member_name("register_buffer", "buffer", name)
        if tensor is not None and not is_tensor(tensor):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor or None, got "
                            f"{type(tensor).__name__}")
        self.__dict__.pop(name, None)
        self._parameters.pop(name, None)
        self._sub_layers.pop(name, None)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)
        if tensor is not None:
            tensor.persistable = persistable
        return tensor

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if is_parameter(value):
            if params is None:
                raise RuntimeError(f"{type(self).__name__}: call super().__init__() before "
                                   f"assigning parameter {name!r}")
            if name not in params:  # (a parameter replaced keeps its place)
                self._remove_name(name)
            params[name] = value
        elif isinstance(value, Layer):
            if params is None:
                raise RuntimeError(f"{type(self).__name__}: call super().__init__() before "
                                   f"assigning sublayer {name!r}")
            if name not in d["_sub_layers"]:  # (a sublayer replaced keeps its place)
                self._remove_name(name)
            d["_sub_layers"][name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"{type(self).__name__}.{name} is a parameter: assign a "
                                f"Parameter or None, not {type(value).__name__}")
            params[name] = None
        elif params is not None and name in d["_sub_layers"]:
            if value is not None:
                raise TypeError(f"{type(self).__name__}.{name} is a sublayer: assign a Layer "
                                f"or None, not {type(value).__name__}")
            d["_sub_layers"][name] = None
        elif params is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor) and not hasattr(value,
                                                                                   "block"):
                raise TypeError(f"{type(self).__name__}.{name} is a buffer: assign a Tensor "
                                f"or None, not {type(value).__name__}")
            d["_buffers"][name] = value
        elif params is not None and isinstance(value, Tensor):
            # as Paddle: an assigned Tensor becomes a buffer, left out of state_dict
            self._remove_name(name)
            d["_buffers"][name] = value
            d["_non_persistable_buffer_names_set"].add(name)
        else:
            object.__setattr__(self, name, value)

    def _remove_name(self, name):
        d = self.__dict__
        d.pop(name, None)
        for table in ("_parameters", "_sub_layers", "_buffers"):
            d[table].pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_sub_layers", "_buffers"):
            entries = d.get(table)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_sub_layers", "_buffers"):
            if name in d.get(table, ()):
                del d[table][name]
                d["_non_persistable_buffer_names_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    # ---- traversal -------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None,
                        remove_duplicate=True):
        """(dotted name, layer) of every sublayer, depth first, each once (under every
        name it has, with remove_duplicate=False)."""
        if layers_set is None:
            layers_set = set()
        if include_self and (not remove_duplicate or id(self) not in layers_set):
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or (remove_duplicate and id(layer) in layers_set):
                continue
            name = prefix + ("." if prefix else "") + key
            layers_set.add(id(layer))
            yield name, layer
            yield from layer.named_sublayers(name, False, layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        return [layer for _, layer in self.named_children()]

    def named_parameters(self, prefix="", include_sublayers=True):
        """(dotted name, parameter) of every parameter, each once."""
        seen = set()
        layers = (self.named_sublayers(prefix, include_self=True) if include_sublayers
                  else [(prefix, self)])
        for layer_prefix, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield layer_prefix + ("." if layer_prefix else "") + key, p

    def parameters(self, include_sublayers=True):
        """Every parameter of this layer (and its sublayers), each once."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = (self.named_sublayers(prefix, include_self=True) if include_sublayers
                  else [(prefix, self)])
        for layer_prefix, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield layer_prefix + ("." if layer_prefix else "") + key, b

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        """Calls ``fn(layer)`` on every sublayer, then on this layer; returns self."""
        if not callable(fn):
            raise ArgumentTypeError(f"{type(self).__name__}.apply: fn must be callable, got "
                                    f"{type(fn).__name__}")
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def clear_gradients(self, set_to_zero=True):
        """Drops (or zeroes) the gradient of every parameter."""
        for p in self.parameters():
            if isinstance(p, Tensor) and p.grad is not None:
                p.clear_grad(set_to_zero)

    clear_grad = clear_gradients

    # ---- state -----------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True, keep_vars=True):
        """An OrderedDict from dotted names ("fc.weight", "bn._mean") to the parameters
        and persistable buffers themselves (not copies)."""
        out = collections.OrderedDict() if destination is None else destination
        layers = (self.named_sublayers(include_self=True) if include_sublayers
                  else [("", self)])
        for layer_prefix, layer in layers:
            prefix = structured_name_prefix + layer_prefix + ("." if layer_prefix else "")
            for key, p in layer._parameters.items():
                if p is not None:
                    out[prefix + key] = p
            for key, b in layer._buffers.items():
                if b is not None and key not in layer._non_persistable_buffer_names_set:
                    out[prefix + key] = b
        return out

    def to_static_state_dict(self, destination=None, include_sublayers=True,
                             structured_name_prefix="", use_hook=True, keep_vars=True):
        """state_dict(): the parameters and persistable buffers by dotted name."""
        return self.state_dict(destination, include_sublayers, structured_name_prefix,
                               use_hook, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copies the values of ``state_dict`` (Tensors or numpy arrays, keyed as
        state_dict() keys them, or by parameter name without use_structured_name) into
        this layer's parameters and buffers. Returns (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"{type(self).__name__}.set_state_dict: state_dict must be a dict "
                            f"of names to Tensors or arrays, got {type(state_dict).__name__}")
        own = self.state_dict()
        missing, used = [], set()
        for key, target in own.items():
            lookup = key if use_structured_name else getattr(target, "name", key)
            if lookup not in state_dict:
                missing.append(key)
                continue
            used.add(lookup)
            with no_grad():
                assign_value(target, state_dict[lookup], f"set_state_dict: entry {lookup!r}")
        unexpected = [k for k in state_dict if k not in used]
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def to(self, device=None, dtype=None, blocking=None):
        """Moves the layer (skiff runs on the CPU: only "cpu" is accepted) and converts its
        floating parameters and buffers to ``dtype`` when given."""
        if device is not None and not str(device).startswith("cpu"):
            raise _C.Error(f"Layer.to({device!r}): this build of skiff runs on the CPU only")
        if dtype is not None:
            self._cast_floating(dt.dtype_name(dtype))
        return self

    def astype(self, dtype):
        return self.to(dtype=dtype)

    def float(self, excluded_layers=None):
        """Casts the floating parameters and buffers to float32 (but those of
        ``excluded_layers``: layers or layer classes); returns self."""
        return self._cast_floating("float32", excluded_layers, "float")

    def double(self):
        return self._cast_floating("float64")

    def bfloat16(self, excluded_layers=None):
        """Casts the floating parameters and buffers to bfloat16, but those of
        ``excluded_layers`` (layers or layer classes; None: the legacy BatchNorm's)."""
        return self._cast_floating("bfloat16", _low_precision_exclusions(excluded_layers),
                                   "bfloat16")

    def float16(self, excluded_layers=None):
        """Paddle casts to float16 where the device computes it; skiff has no float16
        kernels, so, as Paddle on such a device, it warns and keeps the dtypes."""
        _check_exclusions(excluded_layers, "float16")
        warnings.warn("Layer.float16: skiff has no float16 kernels; the parameters keep "
                      "their dtypes (use bfloat16())", stacklevel=2)
        return self

    def half(self):
        """float16()."""
        return self.float16()

    def _cast_floating(self, dtype, excluded_layers=None, where="to"):
        kept = _excluded_set(self, _check_exclusions(excluded_layers, where))
        with no_grad():
            for layer in self.sublayers(include_self=True):
                if id(layer) in kept:
                    continue
                for t in list(layer._parameters.values()) + list(layer._buffers.values()):
                    if isinstance(t, Tensor) and t._dtype_name in ("float32", "float64",
                                                                   "bfloat16"):
                        if t._dtype_name != dtype:
                            t._set_value(_C_ops.cast(t, out_dtype=dtype))
                layer.__dict__["_dtype"] = dtype
        return self

    # ---- printing --------------------------------------------------------------
    def extra_repr(self):
        """The layer's settings, shown inside its repr's parentheses."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for name, layer in self._sub_layers.items():
            if layer is None:
                continue
            text = repr(layer).replace("\n", "\n  ")
            child_lines.append(f"({name}): {text}")
        out = type(self).__name__ + "("
        if extra_lines:
            out += ("\n  " + "\n  ".join(extra_lines) + "\n") if len(extra_lines) > 1 \
                else extra_lines[0]
        if child_lines:
            out += "\n  " + "\n  ".join(child_lines) + "\n"
        return out + ")"
