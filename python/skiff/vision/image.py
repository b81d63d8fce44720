"""The image backend: what the vision datasets and `image_load` return when given backend=None,
'pil' (PIL images), 'cv2' (HWC numpy arrays, BGR as OpenCV reads) or 'tensor' (CHW Tensors).

Unlike Paddle, whose default is 'pil', the default here is 'cv2': images stay numpy arrays,
and Pillow is not needed until a PIL image is asked for.
"""

import numpy as np

from ..tensor.creation import to_tensor

__all__ = ["get_image_backend", "image_load", "set_image_backend"]

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "cv2"


def _check_backend(backend):
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got "
                         f"{backend!r}")
    return backend


def set_image_backend(backend):
    """Sets the default image backend: 'pil', 'cv2' (numpy) or 'tensor'."""
    global _image_backend
    _image_backend = _check_backend(backend)


def get_image_backend():
    """The default image backend, 'cv2' unless set_image_backend changed it."""
    return _image_backend


def image_load(path, backend=None):
    """The image file at `path`: a PIL image ('pil'), an HWC uint8 BGR array as OpenCV's
    imread ('cv2', colour images with three channels) or a CHW uint8 RGB Tensor ('tensor');
    backend None means get_image_backend(). Files are decoded by Pillow."""
    backend = _check_backend(_image_backend if backend is None else backend)
    from PIL import Image  # noqa: PLC0415  (Pillow: optional, needed only to decode files)

    image = Image.open(path)
    if backend == "pil":
        return image
    rgb = np.asarray(image.convert("RGB"))
    if backend == "cv2":
        return np.ascontiguousarray(rgb[:, :, ::-1])
    return to_tensor(np.ascontiguousarray(rgb.transpose(2, 0, 1)))
