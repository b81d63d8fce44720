"""paddle.vision's image backend (skiff/vision/image.py): set/get_image_backend and image_load
of a PNG file for each backend, the PIL one against Paddle's."""
import numpy as np
import pytest

import skiff
from skiff import vision

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def png(tmp_path, rgb):
    path = tmp_path / "image.png"
    Image.fromarray(rgb).save(path)
    return str(path)


def test_image_load_each_backend(paddle, png, rgb):
    loaded = vision.image_load(png, backend="pil")
    expected = paddle.vision.image_load(png, backend="pil")
    assert isinstance(loaded, Image.Image) and loaded.mode == expected.mode
    np.testing.assert_array_equal(np.asarray(loaded), np.asarray(expected))
    bgr = vision.image_load(png, backend="cv2")
    assert bgr.dtype == np.uint8 and bgr.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(bgr, rgb[:, :, ::-1])
    chw = vision.image_load(png, backend="tensor")
    assert isinstance(chw, skiff.Tensor) and chw.dtype == skiff.uint8
    np.testing.assert_array_equal(chw.numpy(), rgb.transpose(2, 0, 1))


def test_default_backend_and_errors(png):
    before = vision.get_image_backend()
    try:
        vision.set_image_backend("pil")
        assert vision.get_image_backend() == "pil"
        assert isinstance(vision.image_load(png), Image.Image)
        vision.set_image_backend("tensor")
        assert isinstance(vision.image_load(png), skiff.Tensor)
    finally:
        vision.set_image_backend(before)
    with pytest.raises(ValueError, match="one of \\['pil', 'cv2', 'tensor'\\]"):
        vision.set_image_backend("opencv")
    with pytest.raises(ValueError, match="but got 'skimage'"):
        vision.image_load(png, backend="skimage")
