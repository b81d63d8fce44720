"""Fractional max pooling (paddle.nn.functional.fractional_max_pool2d / 3d): windows of
pseudo-random sizes (or of kernel_size at pseudo-random strides) placed by one random u
in (0, 1), each output the max of its window. The windows are gathered along each spatial
dim (padded to the longest by repeating an index), the max taken by argmax, so the
gradient reaches exactly the element each output took."""
import numpy as np

from ... import _C_ops
from ...framework.arguments import ArgumentError
from ...tensor import argmax, cast, gather, rand, reshape, take_along_axis, to_tensor, transpose

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _windows(fn, size, out, kernel, u):
    """The [start, end) of each of ``out`` windows over ``size`` entries."""
    if kernel:
        if size < out - 1 + kernel:
            raise ArgumentError(f"{fn}: an input dim of {size} is too small for "
                                f"output size {out} with kernel size {kernel}")
        alpha = (size - kernel) / (out - 1) if out > 1 else 0.0
    else:
        if size < out:
            raise ArgumentError(f"{fn}: an input dim of {size} is smaller than the output "
                                f"size {out}")
        alpha = size / out
        base = size // out  # u scaled so that no window exceeds base + 1 entries
        u = u * min((base + 2) / alpha - 1, (size + 1 - base) / alpha - (out - 1))
    shift = int(u * alpha)
    out_windows = []
    for i in range(out):
        start = int((i + u) * alpha) - shift
        end = start + kernel if kernel else int((i + 1 + u) * alpha) - shift
        out_windows.append((max(start, 0), min(end, size)))
    return out_windows


def _index_table(windows):
    """[out, longest] entries of each window, the last one repeated past its end."""
    longest = max(e - s for s, e in windows)
    return np.array([[min(s + k, e - 1) for k in range(longest)] for s, e in windows],
                    dtype=np.int64)


def _sizes(fn, value, n, what, shape=None):
    if value is None:
        return None
    items = [value] * n if isinstance(value, int) else list(value)
    if len(items) != n:
        raise ArgumentError(f"{fn}: {what} must be an int or {n} ints, got {value!r}")
    out = []
    for d, item in enumerate(items):
        if item is None and shape is not None:
            item = shape[d]
        if isinstance(item, bool) or not isinstance(item, int) or item < 1:
            raise ArgumentError(f"{fn}: {what} must hold positive ints, got {value!r}")
        out.append(int(item))
    return out


def _fractional_max_pool(fn, x, n, output_size, kernel_size, random_u, return_mask):
    if len(x.shape) != n + 2:
        raise ArgumentError(f"{fn}: x must be {n + 2}-D, got shape {list(x.shape)}")
    spatial = [int(s) for s in x.shape[2:]]
    outs = _sizes(fn, output_size, n, "output_size", spatial)
    kernels = _sizes(fn, kernel_size, n, "kernel_size") or [0] * n
    if random_u is None:
        u = float(rand([1], "float64").item())
    else:
        if not isinstance(random_u, (int, float)) or not 0.0 < random_u < 1.0:
            raise ArgumentError(f"{fn}: random_u must lie in (0, 1), got {random_u!r}")
        u = float(random_u)
    tables = [_index_table(_windows(fn, s, o, k, u))
              for s, o, k in zip(spatial, outs, kernels)]
    lead = [int(d) for d in x.shape[:2]]
    vals = x
    for d, table in enumerate(tables):
        vals = gather(vals, to_tensor(table.reshape(-1)), axis=2 + 2 * d)
        shape = [int(s) for s in vals.shape]
        vals = reshape(vals, shape[:2 + 2 * d] + list(table.shape) + shape[3 + 2 * d:])
    # [N, C, o1, k1, o2, k2, ...] -> [N, C, o1, o2, ..., k1 * k2 * ...]
    perm = [0, 1] + [2 + 2 * d for d in range(n)] + [3 + 2 * d for d in range(n)]
    window = int(np.prod([t.shape[1] for t in tables]))
    vals = reshape(transpose(vals, perm), lead + outs + [window])
    best = argmax(vals, axis=-1, keepdim=True)
    out = reshape(take_along_axis(vals, best, axis=-1), lead + outs)
    if not return_mask:
        return out
    # The flat input position (d * H * W + h * W + w) of every window entry.
    flat = np.zeros([1] * 2 + outs + [1] * n, dtype=np.int64)
    stride = 1
    for d in reversed(range(n)):
        view = [1] * (2 + 2 * n)
        view[2 + d], view[2 + n + d] = tables[d].shape
        flat = flat + tables[d].reshape(view) * stride
        stride *= spatial[d]
    flat = to_tensor(np.ascontiguousarray(flat.reshape([1, 1] + outs + [window])))
    flat = _C_ops.expand(flat, shape=lead + outs + [window])
    mask = reshape(take_along_axis(flat, best, axis=-1), lead + outs)
    return out, cast(mask, "int32")


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Max over fractional windows of x [N, C, H, W] to [N, C, *output_size] (None in
    output_size keeps that dim); with return_mask also each max's index h * W + w."""
    return _fractional_max_pool("fractional_max_pool2d", x, 2, output_size, kernel_size,
                                random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Max over fractional windows of x [N, C, D, H, W] to [N, C, *output_size]; with
    return_mask also each max's index d * H * W + h * W + w."""
    return _fractional_max_pool("fractional_max_pool3d", x, 3, output_size, kernel_size,
                                random_u, return_mask)

