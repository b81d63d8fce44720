"""Reading and decoding image files (paddle.vision.ops.read_file, decode_jpeg): a file's
bytes as a uint8 Tensor, and a JPEG's pixels as a uint8 [C, H, W] Tensor (Pillow decodes;
Paddle's decode_jpeg runs only on GPUs, this one on the CPU)."""
import io
import os

import numpy as np

from ...framework import arguments
from ... import tensor as T

__all__ = ["read_file", "decode_jpeg"]


def read_file(filename, name=None):
    """The bytes of the file ``filename`` as a 1-D uint8 Tensor."""
    fn = "read_file"
    if not isinstance(filename, (str, os.PathLike)):
        raise arguments.ArgumentTypeError(f"{fn}: filename must be a str, got "
                                          f"{type(filename).__name__}")
    if not os.path.isfile(filename):
        raise arguments.ArgumentError(f"{fn}: no file {os.fspath(filename)!r}")
    with open(filename, "rb") as f:
        data = f.read()
    return T.to_tensor(np.frombuffer(data, dtype=np.uint8).copy())


def decode_jpeg(x, mode="unchanged", name=None):
    """The image of the JPEG bytes x (a 1-D uint8 Tensor) as uint8 [C, H, W]: its own
    channels ('unchanged'), one ('gray') or three ('rgb')."""
    fn = "decode_jpeg"
    arguments.tensor(fn, "x", x)
    mode = arguments.choice(fn, "mode", mode, ("unchanged", "gray", "rgb"))
    if arguments.dtype_name_of(x) != "uint8" or len(x.shape) != 1:
        raise arguments.ArgumentError(f"{fn}: x must be a 1-D uint8 Tensor of file bytes, got "
                                      f"a {arguments.dtype_name_of(x)} Tensor of shape "
                                      f"{list(x.shape)}")
    from PIL import Image  # noqa: PLC0415  (Pillow: optional, needed only to decode)
    try:
        image = Image.open(io.BytesIO(x.numpy().tobytes()))
        image.load()
    except OSError as e:
        raise arguments.ArgumentError(f"{fn}: x does not hold a decodable image: {e}") from None
    if mode == "gray":
        image = image.convert("L")
    elif mode == "rgb" or image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    pixels = np.asarray(image, dtype=np.uint8)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    return T.to_tensor(np.array(pixels.transpose(2, 0, 1), order="C"))
