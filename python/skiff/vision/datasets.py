"""MNIST and Fashion-MNIST read from IDX files (gzip-compressed or plain), as in paddle.vision.

    train = FashionMNIST(mode="train", transform=transforms.ToTensor())
    image, label = train[0]     # float32 [1, 28, 28] in [0, 1]; int64 label of shape [1]

Nothing is downloaded: files come from `image_path`/`label_path` or a default directory
(Fashion-MNIST: /usr/share/datasets/fashion-mnist, Debian package dataset-fashion-mnist);
download=True only changes the error raised when the files are missing.
"""

import gzip
import os

import numpy as np

from ..io.dataset import Dataset
from .image import get_image_backend

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

_IDX_DTYPES = {
    0x08: np.uint8,
    0x09: np.int8,
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


def _read_bytes(path):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"IDX file not found: {path}")
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            return f.read()
    except (OSError, EOFError) as exc:
        raise ValueError(f"cannot read {path}: {exc} (truncated or corrupt gzip file?)") from exc


def read_idx(path, expected_magic=None):
    """Reads an IDX file (optionally gzip-compressed) into a numpy array of its shape and type.

    `expected_magic` (e.g. 2051 for images, 2049 for labels) is checked when given.
    """
    data = _read_bytes(path)
    if len(data) < 4:
        raise ValueError(f"{path} is too short ({len(data)} bytes) to be an IDX file")
    magic = int.from_bytes(data[:4], "big")
    type_code, ndim = data[2], data[3]
    if expected_magic is not None and magic != expected_magic:
        raise ValueError(
            f"{path}: IDX magic number {magic} (0x{magic:08x}) found, {expected_magic} "
            f"(0x{expected_magic:08x}) expected; wrong or corrupt file"
        )
    if data[0] != 0 or data[1] != 0 or type_code not in _IDX_DTYPES or ndim == 0:
        raise ValueError(f"{path}: magic number 0x{magic:08x} is not a valid IDX header")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path} ends inside its IDX header ({len(data)} bytes)")
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
    dtype = np.dtype(_IDX_DTYPES[type_code])
    expected_bytes = header + int(np.prod(shape)) * dtype.itemsize
    if len(data) != expected_bytes:
        raise ValueError(
            f"{path}: header says shape {shape} ({expected_bytes} bytes in all) but the file "
            f"has {len(data)} bytes; truncated or corrupt"
        )
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="))  # native byte order, writable copy


class MNIST(Dataset):
    """Handwritten digits, 28x28 grey images with labels 0-9 (60000 train / 10000 test).

    Item: (image, label). image is a uint8 [28, 28] numpy array (a PIL image when backend is
    'pil') passed through `transform` when one is given; label is an int64 array of shape [1].
    backend None means `get_image_backend()`, which is 'cv2' (numpy) unless set otherwise.
    """

    NAME = "mnist"
    DEFAULT_DIRS = (os.path.expanduser("~/.cache/paddle/dataset/mnist"),)
    FILES = {
        "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
        "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    }

    def __init__(
        self,
        image_path=None,
        label_path=None,
        mode="train",
        transform=None,
        download=False,
        backend=None,
    ):
        mode = mode.lower()
        if mode not in self.FILES:
            raise ValueError(f"mode must be 'train' or 'test', got {mode!r}")
        backend = backend or get_image_backend()
        if backend not in ("cv2", "pil"):
            raise ValueError(f"backend must be None, 'cv2' or 'pil', got {backend!r}")
        if backend == "pil":
            try:
                import PIL.Image  # noqa: F401,PLC0415  (Pillow: optional)
            except ImportError as exc:
                raise ImportError("backend='pil' needs Pillow (import PIL failed)") from exc
        self.mode = mode
        self.backend = backend
        self.transform = transform
        image_name, label_name = self.FILES[mode]
        self.image_path = image_path or self._default_file(image_name, download)
        self.label_path = label_path or self._default_file(label_name, download)
        self.images = read_idx(self.image_path, expected_magic=2051)
        self.labels = read_idx(self.label_path, expected_magic=2049).astype(np.int64)
        if self.images.ndim != 3 or self.labels.ndim != 1:
            raise ValueError(
                f"expected images [N, rows, cols] and labels [N]; got {list(self.images.shape)} "
                f"from {self.image_path} and {list(self.labels.shape)} from {self.label_path}"
            )
        if len(self.images) != len(self.labels):
            raise ValueError(
                f"{self.image_path} has {len(self.images)} images but {self.label_path} has "
                f"{len(self.labels)} labels"
            )

    def _default_file(self, name, download):
        """The first of DEFAULT_DIRS/name(.gz) that exists; an error naming them all if none."""
        tried = []
        for directory in self.DEFAULT_DIRS:
            for candidate in (name + ".gz", name):
                path = os.path.join(directory, candidate)
                if os.path.isfile(path):
                    return path
                tried.append(path)
        where = f"{type(self).__name__} ({self.mode}) looked for {', '.join(tried)}"
        if download:
            raise RuntimeError(
                f"download=True: downloading datasets is not supported. {where}; put the file "
                f"there or pass image_path and label_path"
            )
        raise FileNotFoundError(
            f"{where} and found none; pass image_path and label_path, or put the file there"
        )

    def __getitem__(self, idx):
        image = self.images[idx].copy()
        label = np.array([self.labels[idx]], dtype=np.int64)
        if self.backend == "pil":
            from PIL import Image  # noqa: PLC0415  (Pillow: optional)

            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        return image, label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 28x28 grey images of 10 clothing classes, same layout as MNIST."""

    NAME = "fashion-mnist"
    DEFAULT_DIRS = (
        "/usr/share/datasets/fashion-mnist",
        os.path.expanduser("~/.cache/paddle/dataset/fashion-mnist"),
    )
