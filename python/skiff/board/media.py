"""Arrays as the event writer takes them: images as uint8 HxWxC (C = 1, 3 or 4) from
HWC / CHW / HW / NCHW layouts in [0, 1] floats or uint8, several images as one grid,
and audio as float32 [frames, channels] in [-1, 1]. Pure numpy; the PNG and WAV
encoding happens on the writer's thread."""
import math
import warnings

import numpy as np

__all__ = ["as_array", "image_hwc", "image_grid", "audio_frames"]


def as_array(value):
    """``value`` (a skiff Tensor, numpy array, list or number) as a numpy array."""
    if isinstance(value, np.ndarray):
        return value
    to_numpy = getattr(value, "numpy", None)
    if callable(to_numpy):
        return np.asarray(to_numpy())
    return np.asarray(value)


def _to_uint8(a):
    """Floats are read as [0, 1] (clipped, scaled by 255 and rounded); integers and bools
    must already lie in [0, 255]."""
    if a.dtype == np.uint8:
        return a
    if a.dtype == np.bool_:
        return a.astype(np.uint8) * 255
    if np.issubdtype(a.dtype, np.floating):
        return np.rint(np.clip(a.astype(np.float64), 0.0, 1.0) * 255.0).astype(np.uint8)
    if np.issubdtype(a.dtype, np.integer):
        if a.size and (a.min() < 0 or a.max() > 255):
            raise ValueError(f"integer image values must lie in [0, 255], got "
                             f"[{a.min()}, {a.max()}]")
        return a.astype(np.uint8)
    raise TypeError(f"an image must hold numbers, got dtype {a.dtype}")


def _check_format(a, dataformats):
    fmt = str(dataformats).upper()
    if len(set(fmt)) != len(fmt) or not set(fmt) <= set("NCHW") or not {"H", "W"} <= set(fmt):
        raise ValueError(f"dataformats must be an arrangement of H, W and optionally C and N "
                         f"(like 'HWC', 'CHW', 'HW', 'NCHW'), got {dataformats!r}")
    if a.ndim != len(fmt):
        raise ValueError(f"an image with dataformats {fmt!r} needs {len(fmt)} dimensions, got "
                         f"shape {list(a.shape)}")
    return fmt


def image_grid(images, rows=-1, scale=1.0):
    """Images [N, H, W, C] (any dtype) tiled row by row into one [rows*H, cols*W, C]
    image, the unused cells black; rows <= 0 picks the squarest grid. ``scale`` resizes
    the result (nearest neighbour)."""
    n, h, w, c = images.shape
    if n == 0:
        raise ValueError("an image grid needs at least one image")
    rows = math.ceil(math.sqrt(n)) if rows is None or rows <= 0 else min(int(rows), n)
    cols = math.ceil(n / rows)
    canvas = np.zeros((rows * h, cols * w, c), dtype=images.dtype)
    for i in range(n):
        r, col = divmod(i, cols)
        canvas[r * h:(r + 1) * h, col * w:(col + 1) * w] = images[i]
    if scale != 1.0:
        if scale <= 0:
            raise ValueError(f"scale must be positive, got {scale}")
        ys = (np.arange(max(1, round(canvas.shape[0] * scale))) / scale).astype(np.int64)
        xs = (np.arange(max(1, round(canvas.shape[1] * scale))) / scale).astype(np.int64)
        canvas = canvas[np.minimum(ys, canvas.shape[0] - 1)][:, np.minimum(xs, canvas.shape[1] - 1)]
    return canvas


def image_hwc(img, dataformats="HWC", rows=-1, scale=1.0):
    """``img`` laid out as ``dataformats`` (letters N, C, H, W; N tiles a batch into a
    grid) as a C-contiguous uint8 [H, W, C] array with C in (1, 3, 4)."""
    a = as_array(img)
    fmt = _check_format(a, dataformats)
    if "C" not in fmt:
        a, fmt = a[..., None], fmt + "C"
    if "N" in fmt:
        a = image_grid(a.transpose([fmt.index(ch) for ch in "NHWC"]), rows, scale)
    else:
        a = a.transpose([fmt.index(ch) for ch in "HWC"])
    if a.shape[2] not in (1, 3, 4):
        raise ValueError(f"an image needs 1, 3 or 4 channels, got {a.shape[2]} (shape "
                         f"{list(a.shape)} as HWC; is dataformats right?)")
    return np.ascontiguousarray(_to_uint8(a))


def audio_frames(audio):
    """``audio`` (1-D samples, [frames, channels], or [1, frames]; floats in [-1, 1] or
    int16) as C-contiguous float32 [frames, channels]; louder samples are clipped to
    [-1, 1] with a warning."""
    a = as_array(audio)
    if a.dtype == np.int16:
        a = a.astype(np.float32) / 32768.0
    elif not np.issubdtype(a.dtype, np.floating):
        raise TypeError(f"audio must hold floats in [-1, 1] or int16 samples, got dtype {a.dtype}")
    a = a.astype(np.float32, copy=False)
    if a.ndim == 2 and a.shape[0] == 1 and a.shape[1] > 1:
        a = a[0]
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(f"audio must be 1-D samples or [frames, channels], got shape "
                         f"{list(a.shape)}")
    if not np.all(np.isfinite(a)):
        raise ValueError("audio samples must be finite")
    if np.abs(a).max() > 1.0:
        warnings.warn("audio samples outside [-1, 1] were clipped", stacklevel=3)
        a = np.clip(a, -1.0, 1.0)
    return np.ascontiguousarray(a)
