"""paddle.nn.functional.multi_label_margin_loss: a hinge between every target class of
a sample and every class that is not one of its targets."""
from ...framework.core import apply
from ...framework.tensor_params import FLOATING, accepts
from . import tensor_ops as T
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
    label_dtype = T.dtype_name(label)
    if label_dtype not in ("int32", "int64"):
        raise TypeError(f"multi_label_margin_loss: label must be int32 or int64, got "
                        f"{label_dtype}")
    classes = int(input.shape[1])
    dtype = T.dtype_name(input)
    label = T.cast(label, "int64")
    # targets are the labels before the first -1
    listed = T.cast(apply("not_equal", label, T.full_like(label, -1)), dtype)
    valid = apply("cumprod", listed, attrs={"axis": 1})
    hot = apply("one_hot", label, attrs={"depth": classes, "dtype": dtype,
                                         "allow_out_of_range": True})
    hot = T.mul(hot, T.unsqueeze(valid, [2]))                       # [N, J, C]
    is_target = T.reduce("max", hot, [1])                           # [N, C]
    picked = T.squeeze(T.matmul(hot, T.unsqueeze(input, [2])), [2])  # [N, J]
    margins = T.sub(T.unsqueeze(input, [1]), T.unsqueeze(picked, [2]))
    hinge = relu(T.scale(margins, 1.0, 1.0))                         # [N, J, C]
    weight = T.mul(T.unsqueeze(valid, [2]), T.unsqueeze(T.scale(is_target, -1.0, 1.0), [1]))
    loss = T.scale(T.reduce("sum", T.mul(hinge, weight), [1, 2]), 1.0 / classes)
    return T.reduce_loss(loss, reduction, "multi_label_margin_loss")
