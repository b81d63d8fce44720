"""The image backend that datasets use when given backend=None: 'cv2' (numpy arrays) or 'pil'.

Unlike Paddle, whose default is 'pil', the default here is 'cv2': images stay numpy arrays,
and Pillow is not needed.
"""

__all__ = ["get_image_backend", "set_image_backend"]

_image_backend = "cv2"


def set_image_backend(backend):
    """Sets the default backend of the vision datasets: 'cv2' (numpy) or 'pil' (PIL images)."""
    global _image_backend
    if backend not in ("cv2", "pil"):
        raise ValueError(f"image backend must be 'cv2' or 'pil', got {backend!r}")
    _image_backend = backend


def get_image_backend():
    """The default backend of the vision datasets, 'cv2' unless set_image_backend changed it."""
    return _image_backend
