"""Rearranging channels (paddle.nn.functional.pixel_unshuffle, channel_shuffle) with
reshape and transpose."""
from ... import _C_ops

__all__ = ["pixel_unshuffle", "channel_shuffle"]


def _nchw(x, data_format, where):
    shape = [int(s) for s in x.shape]
    if len(shape) != 4:
        raise ValueError(f"{where}: expected a 4-D input, got shape {shape}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{where}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if data_format == "NHWC":
        return _C_ops.transpose(x, axis=[0, 3, 1, 2]), [
            shape[0],
            shape[3],
            shape[1],
            shape[2],
        ]
    return x, shape


def _back(y, data_format):
    return _C_ops.transpose(y, axis=[0, 2, 3, 1]) if data_format == "NHWC" else y


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H, W] -> [N, C * r * r, H / r, W / r]: each r x r block of pixels becomes
    r * r channels (the inverse of pixel_shuffle)."""
    if not isinstance(downscale_factor, int):
        raise TypeError(f"pixel_unshuffle: downscale_factor must be an int, got "
                        f"{type(downscale_factor).__name__}")
    if downscale_factor <= 0:
        raise ValueError(f"pixel_unshuffle: downscale_factor must be positive, got "
                         f"{downscale_factor}")
    r = downscale_factor
    x, (n, c, h, w) = _nchw(x, data_format, "pixel_unshuffle")
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle: height {h} and width {w} must be divisible by "
                         f"downscale_factor {r}")
    n = 0 if n < 0 else n
    y = _C_ops.reshape(x, shape=[n, c, h // r, r, w // r, r])
    y = _C_ops.reshape(_C_ops.transpose(y, axis=[0, 1, 3, 5, 2, 4]),
                       shape=[n, c * r * r, h // r, w // r])
    return _back(y, data_format)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Splits the channels into ``groups`` groups and interleaves them: channel g * (C /
    groups) + i goes to i * groups + g."""
    if not isinstance(groups, int):
        raise TypeError(f"channel_shuffle: groups must be an int, got {type(groups).__name__}")
    if groups <= 0:
        raise ValueError(f"channel_shuffle: groups must be positive, got {groups}")
    x, (n, c, h, w) = _nchw(x, data_format, "channel_shuffle")
    if c % groups:
        raise ValueError(f"channel_shuffle: {c} channels are not divisible by groups = {groups}")
    n = 0 if n < 0 else n
    y = _C_ops.reshape(x, shape=[n, groups, c // groups, h, w])
    y = _C_ops.reshape(_C_ops.transpose(y, axis=[0, 2, 1, 3, 4]), shape=[n, c, h, w])
    return _back(y, data_format)
