"""Randomised activations and dropouts (paddle.nn.functional.rrelu,
feature_alpha_dropout): the random draws come from skiff's seeded generators."""
import numbers

from ... import _C
from ... import _C_ops
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.math import add, multiply, scale
from ...tensor.scalars import constant_like
from .common import _dropout_op

__all__ = ["rrelu", "feature_alpha_dropout"]

_SELU_ALPHA_P = -1.7580993408473766  # -scale * alpha of SELU


@accepts(x=FLOATING)
def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """x where x >= 0, else a * x with a drawn uniformly from [lower, upper) per element
    in training, and a = (lower + upper) / 2 at inference."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"rrelu: lower and upper must be floats, got lower={lower!r}, "
                        f"upper={upper!r}")
    if not 0.0 <= lower <= 1.0:
        raise ValueError(f"rrelu: lower must be in [0, 1], got {lower}")
    if upper < lower:
        raise ValueError(f"rrelu: upper ({upper}) must not be below lower ({lower})")
    if upper > 1.0:
        raise ValueError(f"rrelu: upper must be at most 1, got {upper}")
    if not training:
        return _C_ops.leaky_relu(x, alpha=(lower + upper) / 2.0)
    shape = [int(s) for s in x.shape]
    if any(s < 0 for s in shape):
        raise _C.Error(f"rrelu: training needs the dims of x to be known, got {shape}")
    slopes = _C_ops.uniform_random(shape=shape, min=float(lower), max=float(upper), seed=0,
                                   dtype=dtype_name_of(x))
    slopes.stop_gradient = True
    negative = _C_ops.less_than(x, constant_like(x, 0.0))
    return _C_ops.where(negative, multiply(x, slopes), x)


@accepts(x=FLOATING)
def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """Alpha dropout of whole channels of x [N, C, ...]: a dropped channel takes SELU's
    saturation value, then an affine map keeps the mean and variance."""
    if isinstance(p, bool) or not isinstance(p, numbers.Number):
        raise TypeError(f"feature_alpha_dropout: p must be a float or int, got {p!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"feature_alpha_dropout: p must be in [0, 1], got {p}")
    if not training:
        return x
    if p == 1:
        return scale(x, 0.0)
    shape = [int(s) for s in x.shape]
    if len(shape) < 2:
        raise ValueError(f"feature_alpha_dropout: x must have at least 2 dims, got shape "
                         f"{shape}")
    if shape[0] < 0 or shape[1] < 0:
        raise _C.Error(f"feature_alpha_dropout: the batch and channel dims must be known, "
                       f"got {shape}")
    a = ((1.0 - p) * (1.0 + p * _SELU_ALPHA_P ** 2)) ** -0.5
    b = -a * _SELU_ALPHA_P * p
    ones = full(shape[:2] + [1] * (len(shape) - 2), 1.0, dtype_name_of(x))
    keep = _dropout_op(ones, {"dropout_prob": float(p), "is_test": False,
                              "dropout_implementation": "downgrade_in_infer"})
    dropped = scale(keep, -_SELU_ALPHA_P, _SELU_ALPHA_P)  # alpha_p where dropped
    return scale(add(multiply(x, keep), dropped), a, b)
