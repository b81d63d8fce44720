"""paddle.nn.functional.pad: constant, reflect, replicate and circular padding built
from slice, gather, tile and concat ops (each differentiable)."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...tensor.manipulation import concat, slice
from ...tensor.scalars import constant_like

__all__ = ["pad", "zeropad2d"]

_MODES = ("constant", "reflect", "replicate", "circular")
FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def _per_dim(rank, pad, mode, data_format, pad_from_left_axis=True):
    """{dim: (before, after)}. In constant mode, unless pad holds 2 * (rank - 2) entries,
    pairs pad any dims: 2 * rank entries every dim from the first (pad_from_left_axis) or
    the last, fewer the last dims backwards. Otherwise pairs pad the spatial dims of
    data_format from the last one backwards (W, then H, ...)."""
    if len(pad) % 2:
        raise ValueError(f"pad: the pad list needs pairs (before, after), got {pad}")
    if mode == "constant" and len(pad) != 2 * (rank - 2):
        if len(pad) > 2 * rank:
            raise ValueError(f"pad: {len(pad)} pad entries for a rank-{rank} input (at most "
                             f"{2 * rank})")
        if len(pad) == 2 * rank and pad_from_left_axis:
            return {d: (pad[2 * d], pad[2 * d + 1]) for d in range(rank)}
        return {rank - 1 - i: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}
    spatial = (list(range(2, rank)) if data_format[1] == "C" else list(range(1, rank - 1)))
    if len(pad) // 2 > len(spatial):
        raise _C.Error(f"pad: {len(pad) // 2} padded dims asked of a rank-{rank} input "
                       f"({data_format}) with {len(spatial)} spatial dims")
    return {spatial[-1 - i]: (pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)}


def _tile_along(x, dim, times):
    reps = [1] * len(x.shape)
    reps[dim] = times
    return _C_ops.tile(x, repeat_times=reps)


def _reversed(x, dim, start, stop):
    """x's entries start, start - 1, ..., stop + 1 along ``dim``."""
    index = _C_ops.arange(None, None, None, start=float(start), end=float(stop), step=-1.0,
                          dtype="int64")
    return _C_ops.gather(x, index, axis=dim)


def _pad_dim(x, dim, before, after, mode, value):
    size = int(x.shape[dim])
    parts = []
    if mode == "constant":
        edge = slice(x, [dim], [0], [1])
        edge.stop_gradient = True  # only its shape is used
        block = constant_like(edge, value)
        if before:
            parts.append(_tile_along(block, dim, before))
        parts.append(x)
        if after:
            parts.append(_tile_along(block, dim, after))
        return concat(parts, dim)
    if mode == "replicate":
        first, last = slice(x, [dim], [0], [1]), slice(x, [dim], [-1], [2**62])
        parts = ([_tile_along(first, dim, before)] if before else []) + [x] + (
            [_tile_along(last, dim, after)] if after else [])
        return concat(parts, dim)
    if size < 0:
        raise _C.Error(f"pad(mode={mode!r}): dim {dim} of the input must be known")
    if mode == "reflect":
        if before >= size or after >= size:
            raise _C.Error(f"pad(mode='reflect'): padding ({before}, {after}) must be below "
                           f"the dim's size {size}")
        if before:
            parts.append(_reversed(x, dim, before, 0))
        parts.append(x)
        if after:
            parts.append(_reversed(x, dim, size - 2, size - 2 - after))
        return concat(parts, dim)
    if before > size or after > size:  # circular
        raise _C.Error(f"pad(mode='circular'): padding ({before}, {after}) must not exceed "
                       f"the dim's size {size}")
    if before:
        parts.append(slice(x, [dim], [size - before], [size]))
    parts.append(x)
    if after:
        parts.append(slice(x, [dim], [0], [after]))
    return concat(parts, dim)


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """``x`` padded by ``pad`` ([left, right, top, bottom, ...] from the last spatial dim;
    in constant mode also any dims, see _per_dim) in ``mode``: 'constant' (``value``),
    'reflect' (mirror without the edge), 'replicate' (edge) or 'circular'."""
    arguments.choice("pad", "mode", mode, _MODES)
    rank = len(x.shape)
    if data_format is None:
        data_format = {3: "NCL", 5: "NCDHW"}.get(rank, "NCHW")
    arguments.choice("pad", "data_format", data_format, FORMATS)
    pad = arguments.integers("pad", "pad", pad)
    if any(p < 0 for p in pad):
        raise _C.Error(f"pad: negative padding {pad} is not supported")
    value = arguments.number("pad", "value", value)
    dims = _per_dim(rank, pad, mode, data_format, bool(pad_from_left_axis))
    for dim, (before, after) in sorted(dims.items()):
        if before or after:
            x = _pad_dim(x, dim, before, after, mode, value)
    return x


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of the two spatial dims: [left, right, top, bottom]."""
    return pad(x, padding, "constant", 0.0, data_format)
