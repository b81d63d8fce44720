"""Activation functions (paddle.nn.functional): each is one registered op, or a short
composition of ops where skiff has no fused one (relu6, hardswish, ...)."""
from ... import _C_ops
from ..._C import Error
from ...framework import arguments
from ...framework.core import apply, eager_op
from ...framework.mode import mode
from ...framework.tensor_params import FLOATING, accepts, self_checked
from ...framework.arguments import dtype_name_of
from ...tensor.manipulation import split as tensor_split
from ...tensor.math import add, cast, multiply, scale as tensor_scale, subtract
from ...tensor.scalars import constant_like
from ...framework import dtype as dt

__all__ = ["relu", "relu_", "relu6", "sigmoid", "tanh", "gelu", "leaky_relu", "elu", "silu",
           "swish", "softplus", "softmax", "log_softmax", "hardswish", "hardsigmoid",
           "hardtanh", "mish", "softsign", "tanhshrink", "prelu", "log_sigmoid", "selu", "celu",
           "softshrink", "hardshrink", "thresholded_relu", "glu", "logsigmoid", "maxout",
           "gumbel_softmax"]


def _unary(op, doc):
    fast = eager_op(op)

    def f(x, name=None):
        if mode.static:
            return apply(op, arguments.tensor(op, "x", x))
        try:
            return fast(x)
        except Error:
            arguments.explain_op_failure(op, x)
            raise

    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc
    return self_checked(f)


relu = _unary("relu", "max(x, 0), elementwise.")
sigmoid = _unary("sigmoid", "1 / (1 + exp(-x)), elementwise.")
tanh = _unary("tanh", "tanh(x), elementwise.")
_silu = _unary("silu", "x * sigmoid(x), elementwise.")


def silu(x, inplace=False, name=None):
    """x * sigmoid(x), elementwise; written into x when ``inplace``."""
    if inplace:
        return _C_ops.silu(x, out=[x])
    return _silu(x)


def relu_(x, name=None):
    """relu written back into ``x``."""
    return _C_ops.relu(x, out=[x])


@accepts(x=FLOATING)
def swish(x, name=None):
    """x * sigmoid(x) (the same as silu)."""
    return silu(x)


def relu6(x, name=None):
    """min(max(x, 0), 6)."""
    return hardtanh(x, 0.0, 6.0)


def hardtanh(x, min=-1.0, max=1.0, name=None):
    """x clipped to [min, max]."""
    return _C_ops.clip(x, min=float(min), max=float(max))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1) (Paddle's defaults)."""
    return hardtanh(tensor_scale(x, slope, offset), 0.0, 1.0)


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6."""
    return multiply(x, tensor_scale(relu6(tensor_scale(x, 1.0, 3.0)), 1.0 / 6.0))


def gelu(x, approximate=False, name=None):
    """x * Phi(x) (erf form), or its tanh approximation when ``approximate`` is True or
    "tanh" ("none" and False: the erf form)."""
    return _C_ops.gelu(x, approximate=gelu_approximate("gelu", approximate))


def gelu_approximate(fn, approximate):
    """Whether gelu's ``approximate`` (a bool, "tanh" or "none") asks for the tanh form."""
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            raise arguments.ArgumentError(f"{fn}: approximate must be 'tanh', 'none' or a "
                                          f"bool, got {approximate!r}")
        return approximate == "tanh"
    return bool(approximate)


def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x > 0, else negative_slope * x."""
    return _C_ops.leaky_relu(x, alpha=float(negative_slope))


def elu(x, alpha=1.0, name=None):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return _C_ops.elu(x, alpha=float(alpha))


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, or x where beta * x > threshold."""
    return _C_ops.softplus(x, beta=float(beta), threshold=float(threshold))


@accepts(x=FLOATING)
def mish(x, name=None):
    """x * tanh(softplus(x))."""
    return multiply(x, tanh(softplus(x)))


def softsign(x, name=None):
    """x / (1 + |x|)."""
    return _C_ops.elementwise_div(x, tensor_scale(_C_ops.abs(x), 1.0, 1.0))


@accepts(x=FLOATING)
def tanhshrink(x, name=None):
    """x - tanh(x)."""
    return subtract(x, tanh(x))


@accepts(x=FLOATING)
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return tensor_scale(softplus(tensor_scale(x, -1.0)), -1.0)


@accepts(x=FLOATING)
def logsigmoid(x, name=None):
    """log(sigmoid(x)) (the same as log_sigmoid)."""
    return log_sigmoid(x)


def prelu(x, weight, data_format="NCHW", name=None):
    """x where x > 0, else weight * x; ``weight`` has 1 entry or one per channel."""
    w = weight
    rank = len(x.shape)
    if int(weight.shape[0]) != 1 and rank > 1:
        shape = [1] * rank
        shape[1 if data_format[1] == "C" else rank - 1] = -1
        w = _C_ops.reshape(weight, shape=shape)
    neg = multiply(w, subtract(x, relu(x)))
    return add(relu(x), neg)


def _with_dtype(x, dtype):
    return x if dtype is None else cast(x, _name(dtype))


def _name(dtype):
    return dt.dtype_name(dtype)


def _softmax_like(op, doc):
    """softmax or log_softmax (``op``) of x along ``axis``, x first cast to ``dtype``; the
    op checks the axis, which is checked here where it fails, to name the function."""
    def f(x, axis=-1, dtype=None, name=None):
        if axis.__class__ is not int or mode.static:
            axis = arguments.op_axis(op, axis, x, scalar=True)
        try:
            return apply(op, _with_dtype(x, dtype), attrs={"axis": axis})
        except Error:
            arguments.explain_op_failure(op, x)
            arguments.axis(op, axis, len(x.shape), scalar=True)
            raise

    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc
    return self_checked(f)


softmax = _softmax_like("softmax", "exp(x) / sum(exp(x)) along ``axis``.")
log_softmax = _softmax_like("log_softmax", "x - log(sum(exp(x))) along ``axis``.")


@accepts(x=FLOATING)
def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
         name=None):
    """scale * (x where x > 0, else alpha * (exp(x) - 1))."""
    return tensor_scale(elu(x, alpha), scale)


@accepts(x=FLOATING)
def celu(x, alpha=1.0, name=None):
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    return tensor_scale(elu(tensor_scale(x, 1.0 / alpha), 1.0), alpha)


def softshrink(x, threshold=0.5, name=None):
    """x - threshold above it, x + threshold below -threshold, else 0."""
    if threshold < 0:
        raise ValueError(f"softshrink: threshold must be >= 0, got {threshold}")
    return _C_ops.softshrink(x, threshold=float(threshold))


def _where_above(x, magnitude, threshold, value=0.0, out=None):
    """x where ``magnitude`` > threshold, else ``value`` (written into ``out`` if given)."""
    keep = _C_ops.greater_than(magnitude, constant_like(magnitude, threshold))
    return _C_ops.where(keep, x, constant_like(x, value), out=out)


@accepts(x=FLOATING)
def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > threshold, else 0."""
    return _where_above(x, _C_ops.abs(x), threshold)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, else ``value``."""
    return _where_above(x, x, threshold, value)


@accepts(x=FLOATING)
def glu(x, axis=-1, name=None):
    """a * sigmoid(b) for the two halves a, b of x along ``axis``."""
    axis = arguments.axis("glu", axis, len(x.shape))
    if x.shape[axis] % 2:
        raise arguments.ArgumentError(f"glu: axis {axis} of x {list(x.shape)} must have an "
                                      f"even size")
    a, b = tensor_split(x, 2, axis)
    return multiply(a, sigmoid(b))


def maxout(x, groups, axis=1, name=None):
    """The largest of each run of ``groups`` consecutive channels along ``axis`` (1, or
    -1 / 3 for channel-last 4-D input): [N, C, H, W] -> [N, C / groups, H, W]."""
    shape = [int(s) for s in x.shape]
    rank = len(shape)
    if rank != 4:
        raise ValueError(f"maxout: expected a 4-D input, got shape {shape}")
    axis = arguments.axis("maxout", axis, rank)
    if axis not in (1, 3):
        raise arguments.ArgumentError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    channels = shape[axis]
    groups = arguments.count("maxout", "groups", groups, 1)
    if channels % groups:
        raise ValueError(f"maxout: the {channels} channels of axis {axis} are not divisible "
                         f"by groups = {groups}")
    split = [0 if s < 0 else s for s in shape]
    split[axis:axis + 1] = [channels // groups, groups]
    return _C_ops.reduce_max(_C_ops.reshape(x, shape=split), dim=[axis + 1], keep_dim=False,
                             reduce_all=False)


@accepts(x=FLOATING)
def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + g) / temperature) along ``axis`` with Gumbel(0, 1) noise g; ``hard``
    returns the one-hot of its argmax, differentiated as the soft sample."""
    shape = [int(s) for s in x.shape]
    if any(s < 0 for s in shape):
        raise ValueError(f"gumbel_softmax: the input's dims must be known, got {shape}")
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    axis = arguments.axis("gumbel_softmax", axis, len(shape), scalar=True)
    dtype = dtype_name_of(x)
    u = _C_ops.uniform_random(shape=shape, min=1e-20, max=1.0, seed=0, dtype=dtype)
    gumbel = tensor_scale(_C_ops.log(tensor_scale(_C_ops.log(u), -1.0)), -1.0)
    y = softmax(tensor_scale(add(x, gumbel), 1.0 / temperature), axis)
    if not hard:
        return y
    rank = len(shape)
    axis = axis % rank
    index = _C_ops.argmax(y, axis=axis)
    one_hot = _C_ops.one_hot(index, depth=shape[axis], dtype=dtype)
    if axis != rank - 1:
        perm = list(range(axis)) + [rank - 1] + list(range(axis, rank - 1))
        one_hot = _C_ops.transpose(one_hot, axis=perm)
    return add(subtract(one_hot, y.detach()), y)
