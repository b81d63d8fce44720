"""Crops, pads and flips (skiff/vision/transforms/functional.py and the transform
classes of transforms.py) against paddle.vision.transforms: exact against Paddle's PIL
backend (uint8 images) and its Tensor backend (float CHW images); RandomCrop and
RandomResizedCrop draw as Paddle's."""
import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T
from skiff.vision.transforms import functional as F

from image_reference import chw, hwc, seed

Image = pytest.importorskip("PIL.Image")


def test_flips_crops_match_paddle(paddle, pf, rgb):
    pil, tensor = Image.fromarray(rgb), chw(paddle, rgb.astype(np.float32))
    np.testing.assert_array_equal(F.vflip(rgb), np.asarray(pf.vflip(pil)))
    np.testing.assert_array_equal(F.hflip(rgb), np.asarray(pf.hflip(pil)))
    np.testing.assert_array_equal(F.vflip(rgb.astype(np.float32)), hwc(pf.vflip(tensor)))
    np.testing.assert_array_equal(F.crop(rgb, 2, 3, 5, 7), pf.crop(rgb, 2, 3, 5, 7))
    for size in (5, (4, 9), (13, 16), (12, 17)):
        np.testing.assert_array_equal(F.center_crop(rgb, size), pf.center_crop(rgb, size))
        expected = np.asarray(pf.center_crop(pil, size))
        np.testing.assert_array_equal(T.CenterCrop(size)(rgb), expected)
    np.testing.assert_array_equal(F.vflip(rgb[:, :, 0]), rgb[::-1, :, 0])
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(rgb), rgb[::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(0.0)(rgb), rgb)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
@pytest.mark.parametrize("padding", [2, (1, 3), [0, 2, 4, 1]])
def test_pad_matches_paddle_pil(pf, rgb, mode, padding):
    fill = (9, 8, 7)  # PIL and OpenCV fill only the first channel with a number
    expected = np.asarray(pf.pad(Image.fromarray(rgb), padding, fill=fill, padding_mode=mode))
    np.testing.assert_array_equal(F.pad(rgb, padding, fill, mode), expected)
    np.testing.assert_array_equal(T.Pad(padding, fill, mode)(rgb), expected)


def test_pad_fill_per_channel_and_tensor_input(paddle, pf, rgb):
    out = F.pad(rgb, (1, 2), fill=(10, 20, 30))
    assert out.shape == (17, 19, 3)
    np.testing.assert_array_equal(out[0, 0], [10, 20, 30])
    np.testing.assert_array_equal(out[2:-2, 1:-1], rgb)
    image = rgb.astype(np.float32) / 255
    for kwargs in (dict(padding_mode="reflect"), dict(fill=0.5), dict(padding_mode="edge")):
        ours = F.pad(skiff.to_tensor(image.transpose(2, 0, 1)), [1, 2, 3, 0], **kwargs)
        theirs = pf.pad(chw(paddle, image), [1, 2, 3, 0], **kwargs)
        assert isinstance(ours, skiff.Tensor)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_crop_pad_errors(rgb):
    with pytest.raises(ValueError, match="padding_mode"):
        F.pad(rgb, 1, padding_mode="wrap")
    with pytest.raises(ValueError, match="2, or 4 element"):
        T.Pad([1, 2, 3])
    with pytest.raises(ValueError, match="fill has 2 values"):
        F.pad(rgb, 1, fill=(1, 2))
    with pytest.raises(ValueError, match="does not fit"):
        F.crop(rgb, 10, 0, 5, 5)
    with pytest.raises(ValueError, match="larger than the image"):
        F.center_crop(rgb, 14)
    with pytest.raises(ValueError, match="larger than the"):
        T.RandomCrop(20)(rgb)
    with pytest.raises(TypeError, match=r"PIL Image or Tensor Image or ndarray with dim=\[2 or 3\]"):
        F.hflip([[1, 2]])


def test_random_crop_draws_like_paddle(paddle, rgb):
    pil = Image.fromarray(rgb)
    for kwargs in (dict(size=8), dict(size=(6, 10), padding=2), dict(size=20, pad_if_needed=True)):
        seed(11)
        theirs = [np.asarray(paddle.vision.transforms.RandomCrop(**kwargs)(pil)) for _ in range(5)]
        seed(11)
        ours = [T.RandomCrop(**kwargs)(rgb) for _ in range(5)]
        for got, expected in zip(ours, theirs):
            np.testing.assert_array_equal(got, expected)
    assert len({T.RandomCrop(5)(rgb).tobytes() for _ in range(8)}) > 1


def test_random_resized_crop_draws_like_paddle(paddle, rgb):
    image = np.random.default_rng(0).integers(0, 256, size=(40, 60, 3), dtype=np.uint8)
    pil = Image.fromarray(image)
    for kwargs in (dict(size=16), dict(size=(8, 12), scale=(0.5, 1.0), ratio=(2.5, 3.0))):
        theirs_t = paddle.vision.transforms.RandomResizedCrop(**kwargs)
        ours_t = T.RandomResizedCrop(**kwargs)
        seed(5)
        theirs = [theirs_t._dynamic_get_param(pil) for _ in range(20)]
        seed(5)
        ours = [ours_t._get_param(image) for _ in range(20)]
        assert ours == [tuple(int(v) for v in p) for p in theirs]
    seed(2)
    out = T.RandomResizedCrop((8, 12))(image)
    seed(2)
    assert out.shape == (8, 12, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(T.RandomResizedCrop((8, 12))(image), out)
    top, left, h, w = T.RandomResizedCrop(4, ratio=(10.0, 11.0))._get_param(image)
    assert (h, w) == (6, 60) or w / h >= 9  # falls back to the widest centred window
