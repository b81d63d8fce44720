"""Dims known only when a static program runs (``x.shape[k]`` of a -1 dim while building):
``dim`` gives one as an int64 Tensor that remembers its source, and shape lists holding
such dims are resolved for reshape (``reshape_spec``) and full (``full_with_run_dims``)."""
from .. import _C_ops
from .._C import Error
from ..framework.source import user_source
from ..framework.variable import Variable

__all__ = []


def is_static_var(x):
    return isinstance(x, Variable)


def dim(x, axis):
    """Dim ``axis`` of ``x`` at run time: an int64 Tensor of shape [] that remembers where
    it comes from (``_dim_of``: x and the axis), so that shape lists holding it can be
    built (reshape_spec, full_with_run_dims), and that it stands for a Python int
    (``_python_int``: arithmetic with a floating Tensor gives that Tensor's dtype, as the
    int would in eager code)."""
    shape = _C_ops.shape(x)
    out = _C_ops.slice(shape, axes=[0], starts=[axis], ends=[axis + 1], decrease_axis=[0])
    out._dim_of, out._python_int = (x, axis), True
    return out


def _run_dim_error(what):
    return Error(f"{user_source()}: {what} holds more than one dim known only when the program "
                 f"runs (x.shape[k] of an unknown dim); at most one can be built")


def reshape_spec(x, shape):
    """reshape's shape list with the dims known only at run time resolved: x's own dim at
    the same position becomes 0 (copy it), one other -1 (inferred from the size)."""
    out = []
    for pos, s in enumerate(shape):
        if not is_static_var(s):
            out.append(int(s))
            continue
        source = getattr(s, "_dim_of", None)
        same = source is not None and source[0].name == x.name and \
            source[1] % max(len(x.shape), 1) == pos
        out.append(0 if same else -1)
    if out.count(-1) > 1:
        raise _run_dim_error("reshape's shape")
    return out


def full_with_run_dims(shape, value, dtype):
    """A tensor of ``shape`` filled with ``value``, one entry of ``shape`` being a dim of
    another variable known only at run time: that variable's values along the dim (the
    other axes cut to their first index) filled, then broadcast to the shape."""
    runs = [pos for pos, s in enumerate(shape) if is_static_var(s)]
    source = getattr(shape[runs[0]], "_dim_of", None) if len(runs) == 1 else None
    if source is None:
        raise _run_dim_error("the shape")
    x, axis = source
    rank, pos = len(shape), runs[0]
    others = [a for a in range(len(x.shape)) if a != axis % len(x.shape)]
    line = x if not others else _C_ops.slice(x, axes=others, starts=[0] * len(others),
                                             ends=[1] * len(others), decrease_axis=others)
    line = _C_ops.fill_any_like(line, value=float(value), dtype=dtype)
    line = _C_ops.reshape(line, shape=[1] * pos + [-1] + [1] * (rank - pos - 1))
    return _C_ops.expand(line, shape=[-1 if k == pos else int(d) for k, d in enumerate(shape)])
