"""linear, dropout, embedding, one_hot and flatten (paddle.nn.functional)."""
import numbers

from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.tensor_params import FLOATING, accepts, self_checked
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.linalg import matmul
from ...tensor.math import add, multiply, scale
from ...tensor.scalars import constant_like
from ...tensor.manipulation import _flatten_attrs

__all__ = ["linear", "dropout", "embedding", "one_hot", "flatten", "alpha_dropout",
           "label_smooth", "cosine_similarity", "pixel_shuffle", "dropout2d", "dropout3d",
           "dropout1d", "bilinear"]


@self_checked
def linear(x, weight, bias=None, name=None):
    """x · weight + bias with ``weight`` [in_features, out_features] (Paddle's layout)."""
    try:
        out = matmul(x, weight)
        return out if bias is None else add(out, bias)
    except _C.Error:
        _explain_linear(x, weight, bias)
        raise


def _explain_linear(x, weight, bias):
    """Where linear's ops failed: an ArgumentTypeError naming linear when an argument is
    not a Tensor or x has a dtype matmul has no kernel for."""
    arguments.tensor("linear", "weight", weight)
    if bias is not None:
        arguments.tensor("linear", "bias", bias)
    arguments.explain_op_failure("linear", x, "matmul")


def _dropout_op(x, attrs):
    """Runs the dropout op; its mask comes from the process-wide generator that
    skiff.seed(n) restarts (seed 0), a new mask every call or program run."""
    return _C_ops.dropout(x, **dict(attrs, seed=0), output_counts=[1, 1])[0]


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train",
            name=None):
    """Zeroes each element with probability ``p`` in training (the survivors scaled by
    1 / (1 - p) in 'upscale_in_train' mode); at inference returns ``x``, or x * (1 - p) in
    'downscale_in_infer' mode. With ``axis``, one draw is shared along the other axes;
    ``inplace`` writes the result into x."""
    if not isinstance(p, numbers.Number) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be a number in [0, 1], got {p!r}")
    if mode == "downscale_in_infer":
        mode = "downgrade_in_infer"  # the op's name for Paddle's mode
    if mode not in ("upscale_in_train", "downgrade_in_infer"):
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', "
                         f"got {mode!r}")
    inplace = arguments.flag("dropout", "inplace", inplace)
    if mode == "downscale_in_infer":
        mode = "downgrade_in_infer"
    if not training:
        out = scale(x, 1.0 - p) if mode == "downgrade_in_infer" else x
    elif p == 0.0:
        out = x
    elif axis is None:
        out = _dropout_op(x, {"dropout_prob": float(p), "is_test": False,
                              "dropout_implementation": mode})
    else:
        out = _dropout_along(x, p, axis, mode)
    if inplace and out is not x:
        return _C_ops.assign(out, out=[x])
    return out


def _dropout_along(x, p, axis, mode):
    """Dropout with one keep/drop draw per index of ``axis`` (shared by the other axes)."""
    shape = [int(s) for s in x.shape]
    rank = len(shape)
    axes = arguments.axes("dropout", axis, rank)
    if any(shape[a] < 0 for a in axes):
        raise _C.Error(f"dropout(axis={axis}): the dims along axis must be known, input "
                       f"shape {shape}")
    mask_shape = [shape[i] if i in axes else 1 for i in range(rank)]
    ones = full(mask_shape, 1.0, dtype_name_of(x))
    mask = _dropout_op(ones, {"dropout_prob": float(p), "is_test": False,
                              "dropout_implementation": mode})
    return multiply(x, mask)


@accepts(input=FLOATING)
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of [N, C, L] (or [C, L]) inputs with probability ``p`` (scaled
    by 1 / (1 - p) in training; identity at inference)."""
    rank = len(input.shape)
    if rank not in (2, 3):
        raise ValueError(f"dropout1d: expected a 2-D or 3-D input, got shape "
                         f"{list(input.shape)}")
    return dropout(input, p, [0, 1] if rank == 3 else [0], training)


@accepts(x=FLOATING)
def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zeroes whole channels of [N, C, H, W] inputs with probability ``p`` (scaled by
    1 / (1 - p) in training; identity at inference)."""
    if len(x.shape) != 4:
        raise _C.Error(f"dropout2d: expected a 4-D input, got shape {list(x.shape)}")
    return dropout(x, p, [0, 1] if data_format == "NCHW" else [0, 3], training)


@accepts(x=FLOATING)
def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zeroes whole channels of [N, C, D, H, W] inputs with probability ``p``."""
    if len(x.shape) != 5:
        raise _C.Error(f"dropout3d: expected a 5-D input, got shape {list(x.shape)}")
    return dropout(x, p, [0, 1] if data_format == "NCDHW" else [0, 4], training)


@accepts(x=FLOATING)
def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout for SELU networks: dropped elements take the SELU saturation value and
    an affine correction keeps the mean and variance."""
    if not training or p == 0.0:
        return x
    alpha_p = -1.7580993408473766  # -scale * alpha of SELU
    keep = 1.0 - p
    a = (keep + alpha_p * alpha_p * keep * p) ** -0.5
    b = -a * alpha_p * p
    mask = _dropout_op(constant_like(x, 1.0), {"dropout_prob": float(p), "is_test": False,
                                             "dropout_implementation": "downgrade_in_infer"})
    dropped = scale(scale(mask, -1.0, 1.0), alpha_p)  # alpha_p where dropped
    return scale(add(multiply(x, mask), dropped), a, b)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              name=None):
    """The rows of ``weight`` [V, D] at the ids ``x``; rows for ``padding_idx`` are zero and
    get no gradient; ``sparse`` makes weight's gradient selected rows."""
    if max_norm is not None:
        raise _C.Error("embedding(max_norm=...): renormalising rows is not supported")
    vocab = int(weight.shape[0])
    if padding_idx is None:
        pad = -1
    else:
        pad = int(padding_idx)
        if not -vocab <= pad < vocab:
            raise ValueError(f"embedding: padding_idx {padding_idx} is outside [-{vocab}, "
                             f"{vocab})")
        pad = pad + vocab if pad < 0 else pad
    return _C_ops.embedding(weight, x, padding_idx=pad, is_sparse=bool(sparse))


def one_hot(x, num_classes, name=None):
    """A float32 tensor with a new last dim of ``num_classes``: 1 at each label."""
    return _C_ops.one_hot(x, depth=int(num_classes), dtype="float32")


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """``x`` with dims start_axis..stop_axis merged into one."""
    return _C_ops.flatten(x, **_flatten_attrs("flatten", x, start_axis, stop_axis))


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior_dist (uniform 1 / classes by default)."""
    if prior_dist is None:
        return scale(label, 1.0 - epsilon, epsilon / int(label.shape[-1]))
    return add(scale(label, 1.0 - epsilon), scale(prior_dist, epsilon))


@accepts(x1=FLOATING)
def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(|x1|^2 * |x2|^2, eps^2)) along ``axis``."""
    axis = arguments.axis("cosine_similarity", axis, max(len(x1.shape), len(x2.shape)))
    dot = _C_ops.reduce_sum(multiply(x1, x2), dim=[axis], keep_dim=False, reduce_all=False)
    n1 = _C_ops.reduce_sum(_C_ops.square(x1), dim=[axis], keep_dim=False, reduce_all=False)
    n2 = _C_ops.reduce_sum(_C_ops.square(x2), dim=[axis], keep_dim=False, reduce_all=False)
    denom = _C_ops.sqrt(_C_ops.clip(multiply(n1, n2), min=float(eps) ** 2))
    return _C_ops.elementwise_div(dot, denom)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r]: channel blocks become r x r pixels."""
    r = arguments.count("pixel_shuffle", "upscale_factor", upscale_factor, low=1)
    arguments.choice("pixel_shuffle", "data_format", data_format, ("NCHW", "NHWC"))
    shape = [int(s) for s in x.shape]
    if len(shape) != 4:
        raise _C.Error(f"pixel_shuffle: expected a 4-D input, got shape {shape}")
    if data_format == "NHWC":
        x = _C_ops.transpose(x, axis=[0, 3, 1, 2])
        shape = [shape[0], shape[3], shape[1], shape[2]]
    n, c, h, w = shape
    if c % (r * r):
        raise _C.Error(f"pixel_shuffle: {c} channels are not divisible by upscale_factor^2 = "
                       f"{r * r}")
    y = _C_ops.reshape(x, shape=[0 if n < 0 else n, c // (r * r), r, r, h, w])
    y = _C_ops.reshape(_C_ops.transpose(y, axis=[0, 1, 4, 2, 5, 3]),
                       shape=[0 if n < 0 else n, c // (r * r), h * r, w * r])
    return _C_ops.transpose(y, axis=[0, 2, 3, 1]) if data_format == "NHWC" else y


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, o] = x1[n] · weight[o] · x2[n] + bias[o] with x1 [N, in1], x2 [N, in2],
    weight [out, in1, in2] and bias [1, out]."""
    s1, s2, sw = list(x1.shape), list(x2.shape), [int(s) for s in weight.shape]
    if len(s1) != 2 or len(s2) != 2 or len(sw) != 3 or sw[1] != int(s1[1]) or \
            sw[2] != int(s2[1]):
        raise ValueError(f"bilinear: expected x1 [N, in1], x2 [N, in2] and weight [out, in1, "
                         f"in2], got {s1}, {s2} and {sw}")
    out_features, in1, in2 = sw
    w = _C_ops.reshape(_C_ops.transpose(weight, axis=[1, 0, 2]), shape=[in1, out_features * in2])
    left = _C_ops.reshape(matmul(x1, w), shape=[0, out_features, in2])
    out = _C_ops.reduce_sum(multiply(left, _C_ops.unsqueeze(x2, axes=[1])), dim=[2], keep_dim=False,
                            reduce_all=False)
    return out if bias is None else add(out, bias)
