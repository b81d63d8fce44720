"""Crops, pads, flips, colour and warp transforms against paddle.vision.transforms.

Paddle's numpy backend needs OpenCV, which is not installed, so references are Paddle's PIL
backend (uint8 images; exact for all but hue) and its Tensor backend (float CHW images).
Tolerances: hue of uint8 images differs from PIL's integer HSV by up to 16 levels and equals
the Tensor backend; 'nearest' warps equal PIL/Tensor results except for output pixels whose
source point falls within rounding of a pixel edge (<= 1% of pixels); 'bilinear' warps equal
the Tensor backend to 1e-5 away from a 3-pixel border (the two fill the border differently).
"""

import random

import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T
from skiff.vision.transforms import functional as F

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def rgb():
    return np.random.default_rng(3).integers(0, 256, size=(13, 17, 3), dtype=np.uint8)


@pytest.fixture
def pf(paddle):
    return paddle.vision.transforms.functional


def chw(paddle, hwc):
    return paddle.to_tensor(np.ascontiguousarray(hwc.transpose(2, 0, 1)))


def hwc(tensor):
    return tensor.numpy().transpose(1, 2, 0)


def seed(n):
    random.seed(n)
    np.random.seed(n)


def assert_mostly_equal(got, expected, max_fraction=0.01):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    differing = np.any(got != expected, axis=-1) if got.ndim == 3 else got != expected
    assert differing.mean() <= max_fraction, f"{differing.sum()} pixels differ"


# ---- crops, flips, pads: exact ----------------------------------------------------------


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
    with pytest.raises(TypeError, match="numpy array, PIL image or CHW Tensor"):
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


# ---- colour -----------------------------------------------------------------------------


@pytest.mark.parametrize("factor", [0.0, 0.4, 1.0, 1.8])
def test_color_adjust_uint8_matches_paddle_pil(pf, rgb, factor):
    pil = Image.fromarray(rgb)
    for name in ("adjust_brightness", "adjust_contrast", "adjust_saturation"):
        got = getattr(F, name)(rgb, factor)
        assert got.dtype == np.uint8
        expected = np.asarray(getattr(pf, name)(pil, factor))
        np.testing.assert_array_equal(got, expected, err_msg=name)
    gray = rgb[:, :, :1]
    np.testing.assert_array_equal(
        F.adjust_contrast(gray, factor)[:, :, 0],
        np.asarray(pf.adjust_contrast(Image.fromarray(gray[:, :, 0]), factor)),
    )


@pytest.mark.parametrize("factor", [-0.5, -0.21, 0.0, 0.13, 0.5])
def test_adjust_hue(paddle, pf, rgb, factor):
    expected = hwc(pf.adjust_hue(chw(paddle, rgb), factor))
    np.testing.assert_array_equal(F.adjust_hue(rgb, factor), expected)
    pil_result = np.asarray(pf.adjust_hue(Image.fromarray(rgb), factor)).astype(int)
    assert np.abs(F.adjust_hue(rgb, factor).astype(int) - pil_result).max() <= 16
    image = rgb.astype(np.float32) / 255
    np.testing.assert_allclose(
        F.adjust_hue(image, factor), hwc(pf.adjust_hue(chw(paddle, image), factor)), atol=1e-6
    )
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(rgb, 0.6)


@pytest.mark.parametrize("name", ["adjust_brightness", "adjust_contrast", "adjust_saturation"])
def test_color_adjust_float_matches_paddle_tensor(paddle, pf, rgb, name):
    image = rgb.astype(np.float32) / 255
    for factor in (0.3, 1.6):
        expected = hwc(getattr(pf, name)(chw(paddle, image), factor))
        got = getattr(F, name)(image, factor)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
        tensor_out = getattr(F, name)(skiff.to_tensor(image.transpose(2, 0, 1)), factor)
        np.testing.assert_allclose(hwc(tensor_out), expected, rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="non-negative"):
        getattr(F, name)(image, -0.1)


def test_to_grayscale(paddle, pf, rgb):
    expected = np.asarray(pf.to_grayscale(Image.fromarray(rgb)))
    np.testing.assert_array_equal(F.to_grayscale(rgb)[:, :, 0], expected)
    three = T.Grayscale(3)(rgb)
    assert three.shape == (13, 17, 3) and (three[..., 0] == three[..., 2]).all()
    image = rgb.astype(np.float64) / 255
    expected = hwc(pf.to_grayscale(chw(paddle, image), 3))
    np.testing.assert_allclose(F.to_grayscale(image, 3), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="num_output_channels"):
        T.Grayscale(2)
    with pytest.raises(ValueError, match="HWC RGB"):
        F.to_grayscale(rgb[:, :, :2])


def test_color_transforms_draw_like_paddle(paddle, rgb):
    pil = Image.fromarray(rgb)
    P = paddle.vision.transforms
    pairs = [
        (T.BrightnessTransform(0.5), P.BrightnessTransform(0.5)),
        (T.ContrastTransform(0.8), P.ContrastTransform(0.8)),
        (T.SaturationTransform(0.7), P.SaturationTransform(0.7)),
        (T.ColorJitter(0.4, 0.4, 0.4), P.ColorJitter(0.4, 0.4, 0.4)),
    ]
    for ours_t, theirs_t in pairs:
        seed(21)
        theirs = [np.asarray(theirs_t(pil)) for _ in range(4)]
        seed(21)
        ours = [ours_t(rgb) for _ in range(4)]
        for got, expected in zip(ours, theirs):
            np.testing.assert_array_equal(got, expected)
        assert not np.array_equal(ours[0], ours[1])
    image = rgb.astype(np.float32) / 255
    seed(4)
    theirs = [hwc(P.ColorJitter(0.3, 0.3, 0.3, 0.2)(chw(paddle, image))) for _ in range(4)]
    seed(4)
    tensor = skiff.to_tensor(image.transpose(2, 0, 1))
    ours = [hwc(T.ColorJitter(0.3, 0.3, 0.3, 0.2)(tensor)) for _ in range(4)]
    for got, expected in zip(ours, theirs):
        np.testing.assert_allclose(got, expected, atol=2e-6)
    assert T.HueTransform(0)(rgb) is rgb
    with pytest.raises(ValueError, match="hue values should be between"):
        T.HueTransform(0.7)
    with pytest.raises(ValueError, match="non negative"):
        T.BrightnessTransform(-1)


# ---- warps ------------------------------------------------------------------------------


@pytest.mark.parametrize("angle", [17.5, -37, 90, 180, 200.25])
@pytest.mark.parametrize("expand", [False, True])
def test_rotate_nearest_matches_paddle_pil(pf, rgb, angle, expand):
    expected = np.asarray(pf.rotate(Image.fromarray(rgb), angle, expand=expand, fill=(5, 6, 7)))
    np.testing.assert_array_equal(F.rotate(rgb, angle, expand=expand, fill=(5, 6, 7)), expected)
    center = (4, 3)
    expected = np.asarray(pf.rotate(Image.fromarray(rgb), angle, center=center))
    assert_mostly_equal(F.rotate(rgb, angle, center=center), expected)


def test_warps_bilinear_match_paddle_tensor(paddle, pf, rgb):
    image = rgb.astype(np.float32) / 255
    tensor = chw(paddle, image)
    start = [[0, 0], [16, 0], [16, 12], [0, 12]]
    end = [[2, 1], [15, 0], [14, 11], [1, 12]]
    cases = [
        (F.rotate(image, 23, "bilinear"), pf.rotate(tensor, 23, "bilinear")),
        (F.affine(image, 20, [2, -1], 1.2, [10, 5], "bilinear"),
         pf.affine(tensor, 20, [2, -1], 1.2, [10, 5], "bilinear")),
        (F.perspective(image, start, end, "bilinear"),
         pf.perspective(tensor, start, end, "bilinear")),
    ]
    for got, expected in cases:
        assert got.dtype == np.float32
        np.testing.assert_allclose(got[3:-3, 3:-3], hwc(expected)[3:-3, 3:-3], atol=1e-5)
    out = F.rotate(rgb, 23, "bilinear")
    assert out.dtype == np.uint8
    assert np.abs(out.astype(float) - F.rotate(image, 23, "bilinear") * 255).max() <= 0.5 + 1e-3


def test_affine_and_perspective_nearest(paddle, pf, rgb):
    pil = Image.fromarray(rgb)
    for args in ((20, [2, -1], 1.2, [10, 5]), (-33, [0, 3], 0.8, 7), (45, (1, 1), 1.0, [0, -15])):
        assert_mostly_equal(F.affine(rgb, *args), np.asarray(pf.affine(pil, *args)))
    image = rgb.astype(np.float32) / 255  # Paddle's PIL affine ignores fill; its Tensor one not
    got = F.affine(image, -33, [0, 3], 0.8, 7, fill=0.25)
    assert_mostly_equal(got, hwc(pf.affine(chw(paddle, image), -33, [0, 3], 0.8, 7, fill=0.25)))
    assert (got == 0.25).all(axis=-1).sum() > 10
    assert_mostly_equal(F.affine(rgb, 20, [2, -1], 1.2, [10, 5], center=[3, 4]),
                        np.asarray(pf.affine(pil, 20, [2, -1], 1.2, [10, 5], center=[3, 4])))
    start = [[0, 0], [16, 0], [16, 12], [0, 12]]
    end = [[3, 2], [14, 0], [16, 9], [2, 12]]
    expected = np.asarray(pf.perspective(pil, start, end))
    np.testing.assert_array_equal(F.perspective(rgb, start, end), expected)
    expected = hwc(pf.perspective(chw(paddle, image), start, end))
    assert_mostly_equal(F.perspective(image, start, end), expected)
    np.testing.assert_array_equal(F.affine(rgb, 0, [0, 0], 1.0, 0), rgb)
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(rgb, 0, [0, 0], 0, 0)
    with pytest.raises(ValueError, match="interpolation"):
        F.rotate(rgb, 10, "bicubic")
    with pytest.raises(ValueError, match="4 \\[x, y\\] points"):
        F.perspective(rgb, start[:3], end)


def test_random_warps_draw_like_paddle(paddle, rgb):
    pil = Image.fromarray(rgb)
    P = paddle.vision.transforms
    pairs = [
        (T.RandomRotation(40, fill=9), P.RandomRotation(40, fill=9)),
        (T.RandomRotation((10, 80), expand=True), P.RandomRotation((10, 80), expand=True)),
        (T.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), (-10, 10, -5, 5)),
         P.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), (-10, 10, -5, 5))),
        (T.RandomPerspective(0.7, 0.6), P.RandomPerspective(0.7, 0.6)),
    ]
    for ours_t, theirs_t in pairs:
        seed(8)
        theirs = [np.asarray(theirs_t(pil)) for _ in range(6)]
        seed(8)
        ours = [ours_t(rgb) for _ in range(6)]
        for got, expected in zip(ours, theirs):
            assert_mostly_equal(got, expected)
        assert len({o.tobytes() for o in ours}) > 1
    seed(8)
    ours = T.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), 10)._get_param([17, 13])
    seed(8)
    assert ours == P.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), 10)._get_param(
        [17, 13], [-30.0, 30.0], (0.2, 0.1), (0.8, 1.2), [-10.0, 10.0])
    with pytest.raises(ValueError, match="translation values"):
        T.RandomAffine(10, translate=(0.5, 2))
    with pytest.raises(ValueError, match="must be positive"):
        T.RandomRotation(-3)


# ---- erasing ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, (10, 20, 30), "random"])
def test_random_erasing_matches_paddle_numpy(paddle, rgb, value):
    image = np.random.default_rng(1).integers(0, 256, size=(30, 40, 3), dtype=np.uint8)
    seed(13)
    theirs = [paddle.vision.transforms.RandomErasing(0.8, value=value)(image) for _ in range(6)]
    seed(13)
    ours = [T.RandomErasing(0.8, value=value)(image) for _ in range(6)]
    for got, expected in zip(ours, theirs):
        np.testing.assert_array_equal(got, expected)
    assert any(not np.array_equal(o, image) for o in ours)


def test_random_erasing_chw_and_functional(paddle, rgb):
    image = np.random.default_rng(2).random((3, 30, 40)).astype(np.float32)
    seed(3)
    out = T.RandomErasing(1.0, value=(0.1, 0.2, 0.3))(image)  # ToTensor's CHW output
    erased = np.any(out != image, axis=0)
    assert 0 < erased.sum() < 30 * 40
    fill = np.broadcast_to(np.array([[0.1], [0.2], [0.3]]), (3, erased.sum()))
    np.testing.assert_allclose(out[:, erased], fill, rtol=1e-6)
    seed(3)
    tensor_out = T.RandomErasing(1.0, value=(0.1, 0.2, 0.3))(skiff.to_tensor(image))
    np.testing.assert_array_equal(tensor_out.numpy(), out)
    np.testing.assert_array_equal(F.erase(rgb, 1, 2, 3, 4, 0)[1:4, 2:6], 0)
    same = rgb.copy()
    assert F.erase(same, 0, 0, 2, 2, 7, inplace=True) is same and (same[:2, :2] == 7).all()
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="prob"):
        T.RandomErasing(prob=1.5)
