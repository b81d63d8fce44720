"""Normalisation layers: BatchNorm, BatchNorm1D/2D/3D and LayerNorm (paddle.nn). The
running statistics of batch norm are buffers ("_mean", "_variance") updated in place."""
import numpy as np

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad
from ...framework import arguments
from ...framework.arguments import choice, count, real
from ...framework.mode import mode
from ...framework.param import ParamAttr, create_parameter, unique_name
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


def _running_stat(layer, shape, value, name):
    """A persistable, untrained tensor filled with ``value`` (static: a program variable
    initialised by the startup program)."""
    name = name or unique_name.generate(layer._full_name + ".w")
    if mode.static:
        attr = ParamAttr(name=name, initializer=Constant(value), trainable=False)
        return create_parameter(shape, layer._dtype, name, attr)
    with no_grad():
        t = Tensor()
        t._set_value(Constant(value)._value(shape, layer._dtype))
    t.name, t.persistable, t.stop_gradient = name, True, True
    return t


# The data formats the norm layers take (batch norm's "NC" for [N, C] inputs too).
_FORMATS = ("NC", "NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


class _BatchNormBase(Layer):
    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None,
                 moving_mean_name=None, moving_variance_name=None, dtype="float32"):
        super().__init__(dtype=dtype)
        where = type(self).__name__
        num_features = count(where, "num_features", num_features)
        momentum = real(where, "momentum", momentum)
        epsilon = real(where, "epsilon", epsilon, low=0)
        choice(where, "data_format", data_format, _FORMATS)
        if use_global_stats is not None:
            use_global_stats = arguments.flag(where, "use_global_stats", use_global_stats)
        for param, value in (("moving_mean_name", moving_mean_name),
                             ("moving_variance_name", moving_variance_name)):
            if value is not None and not isinstance(value, str):
                raise arguments.ArgumentTypeError(f"{where}: {param} must be a str or None, "
                                                  f"got {type(value).__name__}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats, self._name = data_format, use_global_stats, name
        shape = [num_features]
        if weight_attr is False:
            self.weight = None
        else:
            self.weight = self.create_parameter(shape, weight_attr,
                                                default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(shape, bias_attr,
                                                                          is_bias=True)
        self.register_buffer("_mean", _running_stat(self, shape, 0.0, moving_mean_name))
        self.register_buffer("_variance", _running_stat(self, shape, 1.0, moving_variance_name))

    def forward(self, input):
        shape = list(input.shape)
        if len(shape) not in self._ranks:
            dims = " or ".join(str(r) for r in self._ranks)
            raise _C.Error(f"{type(self).__name__}: expected a {dims}-D input, got shape "
                           f"{shape}")
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias,
                            self.training, self._momentum, self._epsilon, self._data_format,
                            self._use_global_stats)

    def extra_repr(self):
        s = f"num_features={self._num_features}, momentum={self._momentum}, " \
            f"epsilon={self._epsilon}"
        if self._data_format not in ("NCHW",):
            s += f", data_format={self._data_format}"
        return s


class BatchNorm1D(_BatchNormBase):
    """Batch norm of [N, C] or [N, C, L] inputs ('NCL'; 'NLC': channels last)."""
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr,
                         "NC" if data_format in ("NC", "NCL") else data_format, use_global_stats,
                         name)
        self._data_format_shown = data_format

    def extra_repr(self):
        return super().extra_repr() + f", data_format={self._data_format_shown}"


class BatchNorm2D(_BatchNormBase):
    """Batch norm of [N, C, H, W] inputs ('NCHW'; 'NHWC': channels last)."""
    _ranks = (4,)


class BatchNorm3D(_BatchNormBase):
    """Batch norm of [N, C, D, H, W] inputs ('NCDHW'; 'NDHWC': channels last)."""
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm(_BatchNormBase):
    """The older batch-norm layer: ``num_channels``, an optional activation ``act``,
    ``is_test`` forcing inference statistics, ``param_attr`` for the scale."""

    _keeps_float32 = True  # Layer.bfloat16() leaves it alone by default, as Paddle's

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats or None, None, moving_mean_name, moving_variance_name,
                         dtype)
        self._act, self._is_test = act, is_test
        self._trainable_statistics = trainable_statistics

    def forward(self, input):
        training = self.training and not self._is_test
        if self._trainable_statistics:
            training = True
        y = F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, training,
                         self._momentum, self._epsilon, self._data_format,
                         self._use_global_stats)
        if self._act is None:
            return y
        return getattr(F, self._act)(y)

    def extra_repr(self):
        return ""


class LayerNorm(Layer):
    """Normalises over the trailing ``normalized_shape`` dims, then scales and shifts by
    weight / bias of size prod(normalized_shape) (ones / zeros by default)."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__()
        self._normalized_shape = arguments.shape("LayerNorm", normalized_shape, "normalized_shape")
        self._epsilon = real("LayerNorm", "epsilon", epsilon, low=0)
        shape = [int(np.prod(self._normalized_shape))]
        self.weight = None if weight_attr is False else self.create_parameter(
            shape, weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            shape, bias_attr, is_bias=True)

    def forward(self, input):
        shape = [int(s) for s in input.shape]
        n = len(self._normalized_shape)
        if len(shape) < n or any(a >= 0 and a != b for a, b in
                                 zip(shape[len(shape) - n:], self._normalized_shape)):
            raise _C.Error(f"LayerNorm: the input's trailing dims must be normalized_shape = "
                           f"{self._normalized_shape}, got input shape {shape}")
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias,
                            self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalises groups of channels (num_groups of them) per sample; weight and bias
    [num_channels] (ones / zeros)."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        num_groups = count("GroupNorm", "num_groups", num_groups, low=1)
        num_channels = count("GroupNorm", "num_channels", num_channels)
        epsilon = real("GroupNorm", "epsilon", epsilon, low=0)
        choice("GroupNorm", "data_format", data_format, _FORMATS)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by "
                             f"num_groups ({num_groups})")
        self._num_groups, self._num_channels = num_groups, num_channels
        self._epsilon, self._data_format = epsilon, data_format
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_channels], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_channels], bias_attr, is_bias=True)

    def forward(self, input):
        c = int(input.shape[1] if self._data_format[1] == "C" else input.shape[-1])
        if c >= 0 and c != self._num_channels:
            raise _C.Error(f"GroupNorm: the input has {c} channels, the layer "
                           f"{self._num_channels} (input shape {list(input.shape)})")
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self):
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


class _InstanceNormBase(Layer):
    _rank = 4

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        where = type(self).__name__
        num_features = count(where, "num_features", num_features)
        epsilon = real(where, "epsilon", epsilon, low=0)
        choice(where, "data_format", data_format, _FORMATS)
        self._num_features, self._epsilon, self._data_format = num_features, epsilon, data_format
        self.scale = None if weight_attr is False else self.create_parameter(
            [num_features], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_features], bias_attr, is_bias=True)

    def forward(self, input):
        if len(input.shape) != self._rank:
            raise _C.Error(f"{type(self).__name__}: expected a {self._rank}-D input, got shape "
                           f"{list(input.shape)}")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance norm of [N, C, L] inputs (learned scale and bias per channel)."""
    _rank = 3


class InstanceNorm2D(_InstanceNormBase):
    """Instance norm of [N, C, H, W] inputs (learned scale and bias per channel)."""
    _rank = 4


class InstanceNorm3D(_InstanceNormBase):
    """Instance norm of [N, C, D, H, W] inputs (learned scale and bias per channel)."""
    _rank = 5


class LocalResponseNorm(Layer):
    """x / (k + alpha * avg(x^2))^beta over windows of ``size`` channels."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        fn = "LocalResponseNorm"
        size = count(fn, "size", size, low=1)
        alpha, beta, k = real(fn, "alpha", alpha), real(fn, "beta", beta), real(fn, "k", k)
        choice(fn, "data_format", data_format, _FORMATS)
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k,
                                     self.data_format)

    def extra_repr(self):
        return (f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}, "
                f"data_format={self.data_format}")
