"""The few tensor manipulations the nn functions need, as direct op calls (eager or
static through ``apply``)."""
from ...framework.core import apply, eager_op
from ...framework.mode import mode
from ...framework import dtype as dt

_add = eager_op("elementwise_add")
_mul = eager_op("elementwise_mul")
_sub = eager_op("elementwise_sub")
_matmul = eager_op("matmul")


def add(x, y):
    return apply("elementwise_add", x, y) if mode.static else _add(x, y)


def sub(x, y):
    return apply("elementwise_sub", x, y) if mode.static else _sub(x, y)


def mul(x, y):
    return apply("elementwise_mul", x, y) if mode.static else _mul(x, y)


def div(x, y):
    return apply("elementwise_div", x, y)


def matmul(x, y, trans_x=False, trans_y=False):
    if trans_x or trans_y or mode.static:
        return apply("matmul", x, y, attrs={"trans_x": trans_x, "trans_y": trans_y})
    return _matmul(x, y)


def scale(x, factor, bias=0.0):
    return apply("scale", x, attrs={"scale": float(factor), "bias": float(bias)})


def reshape(x, shape):
    return apply("reshape", x, attrs={"shape": [int(s) for s in shape]})


def transpose(x, perm):
    return apply("transpose", x, attrs={"axis": list(perm)})


def unsqueeze(x, axes):
    return apply("unsqueeze", x, attrs={"axes": list(axes)})


def squeeze(x, axes):
    return apply("squeeze", x, attrs={"axes": list(axes)})


def concat(xs, axis):
    return apply("concat", list(xs), attrs={"axis": axis})


def stack(xs, axis):
    return apply("stack", list(xs), attrs={"axis": axis})


def split(x, num, axis):
    """``num`` equal parts of x along ``axis`` (a list)."""
    parts = apply("split", x, attrs={"num": num, "axis": axis}, output_counts=[num])
    return list(parts[0]) if isinstance(parts, tuple) else list(parts)


def slice(x, axes, starts, ends, decrease_axis=()):
    return apply("slice", x, attrs={"axes": list(axes), "starts": list(starts),
                                    "ends": list(ends), "decrease_axis": list(decrease_axis)})


def cast(x, dtype):
    return apply("cast", x, attrs={"out_dtype": dtype})


def reduce(op, x, axes=None, keepdim=False):
    """reduce_<op> over ``axes`` (all dims when None)."""
    return apply("reduce_" + op, x, attrs={"dim": list(axes or []), "keep_dim": keepdim,
                                           "reduce_all": axes is None})


def fill(shape, value, dtype):
    return apply("fill_constant", attrs={"shape": list(shape), "value": float(value),
                                         "dtype": dtype})


def full_like(x, value):
    """A constant of x's shape and dtype; no gradient flows through it."""
    if mode.static and not x.stop_gradient:
        x = x.detach()  # (a program's backward must not meet fill_any_like on a grad path)
    out = apply("fill_any_like", x, attrs={"value": float(value), "dtype": ""})
    out.stop_gradient = True
    return out


def dtype_name(x):
    """The dtype name of a Tensor or static Variable."""
    name = getattr(x, "_dtype_name", None)
    if name is not None:
        return name
    return dt.dtype_name(x.dtype)


def reduce_loss(loss, reduction, where):
    """'none' keeps ``loss``, 'sum' adds it up, 'mean' averages it."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return reduce("sum", loss)
    if reduction == "mean":
        return reduce("mean", loss)
    raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got {reduction!r}")
