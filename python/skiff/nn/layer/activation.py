"""Activation layers (paddle.nn.ReLU, GELU, Softmax, ...), each calling its function
in skiff.nn.functional."""
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "GELU", "LeakyReLU", "ELU", "SiLU", "Swish",
           "Softplus", "Softmax", "LogSoftmax", "Hardswish", "Hardsigmoid", "Hardtanh", "Mish",
           "Softsign", "Tanhshrink", "LogSigmoid", "PReLU", "SELU", "CELU", "Softshrink",
           "Hardshrink", "ThresholdedReLU", "GLU", "Silu", "Softmax2D", "Maxout"]


def _simple(name, fn, doc):
    """A layer class with no settings whose forward is ``fn``."""

    def __init__(self, name=None):
        Layer.__init__(self)
        self._name = name

    def forward(self, x):
        return fn(x)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""

    return _layer_class(name, doc, __init__, forward, extra_repr)


def _layer_class(name, doc, *methods):
    """A Layer subclass called ``name`` holding ``methods``, each named as its own (so that
    messages and tracebacks say ``SELU.forward``, not the factory's local function)."""
    for m in methods:
        m.__qualname__ = f"{name}.{m.__name__}"
    return type(name, (Layer,), dict({m.__name__: m for m in methods}, __doc__=doc))


ReLU = _simple("ReLU", F.relu, "max(x, 0).")
ReLU6 = _simple("ReLU6", F.relu6, "min(max(x, 0), 6).")
Sigmoid = _simple("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).")
Tanh = _simple("Tanh", F.tanh, "tanh(x).")
Swish = _simple("Swish", F.swish, "x * sigmoid(x).")
Hardswish = _simple("Hardswish", F.hardswish, "x * relu6(x + 3) / 6.")
Mish = _simple("Mish", F.mish, "x * tanh(softplus(x)).")
Softsign = _simple("Softsign", F.softsign, "x / (1 + |x|).")
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "x - tanh(x).")
LogSigmoid = _simple("LogSigmoid", F.log_sigmoid, "log(sigmoid(x)).")
SELU = _simple("SELU", F.selu, "Scaled ELU with the self-normalising constants.")


def _with_setting(name, fn, setting, default, doc):
    """A layer class with one setting passed to ``fn`` (e.g. a threshold)."""

    def __init__(self, value=default, name=None):
        Layer.__init__(self)
        self.__dict__["_" + setting] = value

    def forward(self, x):
        return fn(x, self.__dict__["_" + setting])

    def extra_repr(self):
        return f"{setting}={self.__dict__['_' + setting]}"

    return _layer_class(name, doc, __init__, forward, extra_repr)


CELU = _with_setting("CELU", F.celu, "alpha", 1.0, "x, or alpha * (exp(x / alpha) - 1) below 0.")
Softshrink = _with_setting("Softshrink", F.softshrink, "threshold", 0.5,
                           "x shrunk towards 0 by threshold (0 within it).")
Hardshrink = _with_setting("Hardshrink", F.hardshrink, "threshold", 0.5,
                           "x where |x| > threshold, else 0.")
GLU = _with_setting("GLU", F.glu, "axis", -1, "a * sigmoid(b) for the halves of x along axis.")


class ThresholdedReLU(Layer):
    """x where x > threshold, else ``value``."""

    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold, self._value = threshold, value

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value)

    def extra_repr(self):
        return f"threshold={self._threshold}, value={self._value}"


class SiLU(Layer):
    """x * sigmoid(x) (written into x when ``inplace``)."""

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._inplace, self._name = bool(inplace), name

    def forward(self, x):
        return F.silu(x, self._inplace)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class GELU(Layer):
    """x * Phi(x) (tanh approximation with approximate=True or "tanh")."""

    def __init__(self, approximate=False, name=None):
        super().__init__()
        F.activation.gelu_approximate("GELU", approximate)
        self._approximate = approximate

    def forward(self, x):
        return F.gelu(x, self._approximate)

    def extra_repr(self):
        return f"approximate={self._approximate}" if self._approximate else ""


class LeakyReLU(Layer):
    """x where x > 0, else negative_slope * x."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}"


class ELU(Layer):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha

    def forward(self, x):
        return F.elu(x, self._alpha)

    def extra_repr(self):
        return f"alpha={self._alpha}"


class Softplus(Layer):
    """log(1 + exp(beta * x)) / beta (x past the threshold)."""

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._beta, self._threshold = beta, threshold

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold)

    def extra_repr(self):
        return f"beta={self._beta}, threshold={self._threshold}"


class Softmax(Layer):
    """Softmax along ``axis``."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}"


class LogSoftmax(Softmax):
    """Log-softmax along ``axis``."""

    def forward(self, x):
        return F.log_softmax(x, self._axis)


class Hardsigmoid(Layer):
    """clip(slope * x + offset, 0, 1)."""

    def __init__(self, slope=0.1666667, offset=0.5, name=None):
        super().__init__()
        self._slope, self._offset = slope, offset

    def forward(self, x):
        return F.hardsigmoid(x, self._slope, self._offset)


class Hardtanh(Layer):
    """x clipped to [min, max]."""

    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__()
        self._min, self._max = min, max

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max)

    def extra_repr(self):
        return f"min={self._min}, max={self._max}"


class PReLU(Layer):
    """x where x > 0, else weight * x, with a learned weight (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self.weight = self.create_parameter([num_parameters], weight_attr,
                                            default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self.weight, self._data_format)

    def extra_repr(self):
        return f"num_parameters={self._num_parameters}, data_format={self._data_format}, " \
               f"init={self._init}, dtype={self._dtype}"


Silu = SiLU


class Softmax2D(Layer):
    """Softmax over the channels of [C, H, W] or [N, C, H, W] inputs (axis -3)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise ValueError(f"Softmax2D: expected a 3-D or 4-D input, got shape "
                             f"{list(x.shape)}")
        return F.softmax(x, -3)


class Maxout(Layer):
    """The largest of each run of ``groups`` consecutive channels (see F.maxout)."""

    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups, self._axis = groups, axis

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis)

    def extra_repr(self):
        return f"groups={self._groups}, axis={self._axis}"
