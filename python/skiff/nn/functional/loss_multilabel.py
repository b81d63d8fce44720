"""paddle.nn.functional.multi_label_margin_loss: a hinge between every target class of
a sample and every class that is not one of its targets."""
from ... import _C_ops
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.linalg import matmul
from .loss import reduce_loss
from ...tensor.manipulation import squeeze
from ...tensor.math import cast, multiply, scale, subtract
from ...tensor.scalars import constant_like
from .activation import relu

__all__ = ["multi_label_margin_loss"]


@accepts(input=FLOATING)
def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """For scores [N, C] and labels [N, C] (target class ids, ended by the first -1):
    sum over targets j and non-targets i of max(0, 1 - (input[y_j] - input[i])), / C."""
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"multi_label_margin_loss: reduction must be 'none', 'sum' or "
                         f"'mean', got {reduction!r}")
    if len(input.shape) != 2:
        raise ValueError(f"multi_label_margin_loss: input must be 2-D [N, C], got shape "
                         f"{list(input.shape)}")
    if len(label.shape) != 2:
        raise ValueError(f"multi_label_margin_loss: label must be 2-D [N, C], got shape "
                         f"{list(label.shape)}")
    label_dtype = dtype_name_of(label)
    if label_dtype not in ("int32", "int64"):
        raise TypeError(f"multi_label_margin_loss: label must be int32 or int64, got "
                        f"{label_dtype}")
    classes = int(input.shape[1])
    dtype = dtype_name_of(input)
    label = cast(label, "int64")
    # targets are the labels before the first -1
    listed = cast(_C_ops.not_equal(label, constant_like(label, -1)), dtype)
    valid = _C_ops.cumprod(listed, axis=1)
    hot = _C_ops.one_hot(label, depth=classes, dtype=dtype, allow_out_of_range=True)
    hot = multiply(hot, _C_ops.unsqueeze(valid, axes=[2]))  # [N, J, C]
    is_target = _C_ops.reduce_max(hot, dim=[1], keep_dim=False, reduce_all=False)  # [N, C]
    picked = squeeze(matmul(hot, _C_ops.unsqueeze(input, axes=[2])), [2])  # [N, J]
    margins = subtract(
        _C_ops.unsqueeze(input, axes=[1]),
        _C_ops.unsqueeze(picked, axes=[2]),
    )
    hinge = relu(scale(margins, 1.0, 1.0))  # [N, J, C]
    weight = multiply(
        _C_ops.unsqueeze(valid, axes=[2]),
        _C_ops.unsqueeze(scale(is_target, -1.0, 1.0), axes=[1]),
    )
    loss = scale(
        _C_ops.reduce_sum(multiply(hinge, weight), dim=[1, 2], keep_dim=False, reduce_all=False),
        1.0 / classes,
    )
    return reduce_loss(loss, reduction, "multi_label_margin_loss")
