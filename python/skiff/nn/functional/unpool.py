"""Max unpooling (paddle.nn.functional.max_unpool1d, max_unpool2d, max_unpool3d): the inverse of
max pooling with return_mask, each value written back at its index in the output
plane (h * W + w), zeros elsewhere."""
from ... import _C
from ... import _C_ops
from ...framework.tensor_params import TENSOR, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.math import add, cast, subtract

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _ints(value, n, what, where):
    if isinstance(value, int):
        return [value] * n
    value = [int(v) for v in value]
    if len(value) != n:
        raise ValueError(f"{where}: {what} must be an int or {n} ints, got {value}")
    return value


def _output_size(in_size, kernel, stride, padding, output_size, where):
    """Paddle's rule: (in - 1) * stride - 2 * padding + kernel, or ``output_size``
    (the spatial dims, or all dims) within one stride of that."""
    default = [(i - 1) * s + k - 2 * p for i, k, s, p in zip(in_size, kernel, stride, padding)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):
        raise ValueError(f"{where}: output_size must be a list or tuple, got {output_size!r}")
    size = [int(v) for v in output_size]
    if len(size) == len(kernel) + 2:
        size = size[2:]
    if len(size) != len(kernel):
        raise ValueError(f"{where}: output_size must hold {len(kernel)} or "
                         f"{len(kernel) + 2} entries, got {list(output_size)}")
    for d, (want, base, s) in enumerate(zip(size, default, stride)):
        if not base - s < want < base + s:
            raise ValueError(f"{where}: invalid output_size {size} (dim {d} must be between "
                             f"{base - s} and {base + s})")
    return size


def _unpool(x, indices, spatial_out, where):
    """Scatters x [N, C, *S] into zeros [N, C, prod(spatial_out)] at ``indices`` (the
    gradient of each input is the output gradient at its index, repeated or not)."""
    shape = [int(s) for s in x.shape]
    if list(indices.shape) != list(x.shape):
        raise ValueError(f"{where}: indices {list(indices.shape)} must have the shape of x "
                         f"{shape}")
    if any(s < 0 for s in shape):
        raise _C.Error(f"{where}: the dims of x must be known, got {shape}")
    planes, plane_in = shape[0] * shape[1], 1
    for s in shape[2:]:
        plane_in *= s
    plane_out = 1
    for s in spatial_out:
        plane_out *= s
    idx = cast(_C_ops.reshape(indices, shape=[planes, plane_in]), "int64")
    offsets = _C_ops.arange(None, None, None, start=0.0, end=float(planes * plane_out),
                            step=float(plane_out), dtype="int64")
    flat_idx = _C_ops.reshape(add(idx, _C_ops.reshape(offsets, shape=[planes, 1])), shape=[-1])
    values = _C_ops.reshape(x, shape=[-1, 1])
    zeros = full([planes * plane_out, 1], 0.0, dtype_name_of(x))
    placed = _C_ops.scatter(zeros, flat_idx, values, overwrite=True)
    # The summing scatter carries the gradient (every input reads its output's
    # gradient, as in Paddle); its value cancels so the result is the overwrite's.
    summed = _C_ops.scatter(zeros, flat_idx, values, overwrite=False)
    out = add(placed.detach(), subtract(summed, summed.detach()))
    return _C_ops.reshape(out, shape=[int(d) for d in shape[:2] + list(spatial_out)])


@accepts(indices=TENSOR)
def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """Puts each value of x [N, C, H, W] at its max-pooling index in a zero
    [N, C, H_out, W_out] output."""
    if data_format != "NCHW":
        raise ValueError(f"max_unpool2d: data_format must be 'NCHW', got {data_format!r}")
    if len(x.shape) != 4 or len(indices.shape) != 4:
        raise ValueError(f"max_unpool2d: x and indices must be 4-D [N, C, H, W], got "
                         f"{list(x.shape)} and {list(indices.shape)}")
    kernel = _ints(kernel_size, 2, "kernel_size", "max_unpool2d")
    stride = kernel if stride is None else _ints(stride, 2, "stride", "max_unpool2d")
    padding = _ints(padding, 2, "padding", "max_unpool2d")
    size = _output_size([int(s) for s in x.shape[2:]], kernel, stride, padding, output_size,
                        "max_unpool2d")
    return _unpool(x, indices, size, "max_unpool2d")


@accepts(indices=TENSOR)
def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """Puts each value of x [N, C, L] at its max-pooling index in a zero [N, C, L_out]
    output."""
    if data_format != "NCL":
        raise ValueError(f"max_unpool1d: data_format must be 'NCL', got {data_format!r}")
    if len(x.shape) != 3 or len(indices.shape) != 3:
        raise ValueError(f"max_unpool1d: x and indices must be 3-D [N, C, L], got "
                         f"{list(x.shape)} and {list(indices.shape)}")
    kernel = _ints(kernel_size, 1, "kernel_size", "max_unpool1d")
    stride = kernel if stride is None else _ints(stride, 1, "stride", "max_unpool1d")
    padding = _ints(padding, 1, "padding", "max_unpool1d")
    size = _output_size([int(x.shape[2])], kernel, stride, padding, output_size,
                        "max_unpool1d")
    return _unpool(x, indices, size, "max_unpool1d")


@accepts(indices=TENSOR)
def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    """Puts each value of x [N, C, D, H, W] at its max-pooling index (d * H * W + h * W +
    w) in a zero [N, C, D_out, H_out, W_out] output."""
    if data_format != "NCDHW":
        raise ValueError(f"max_unpool3d: data_format must be 'NCDHW', got {data_format!r}")
    if len(x.shape) != 5 or len(indices.shape) != 5:
        raise ValueError(f"max_unpool3d: x and indices must be 5-D [N, C, D, H, W], got "
                         f"{list(x.shape)} and {list(indices.shape)}")
    kernel = _ints(kernel_size, 3, "kernel_size", "max_unpool3d")
    stride = kernel if stride is None else _ints(stride, 3, "stride", "max_unpool3d")
    padding = _ints(padding, 3, "padding", "max_unpool3d")
    size = _output_size([int(s) for s in x.shape[2:]], kernel, stride, padding, output_size,
                        "max_unpool3d")
    return _unpool(x, indices, size, "max_unpool3d")
