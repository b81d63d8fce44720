"""Colour transforms (skiff/vision/transforms/color.py, color_transforms.py) against
paddle.vision.transforms: brightness, contrast and saturation exact against Paddle's PIL
backend on uint8 images and its Tensor backend on float images; hue of uint8 images differs
from PIL's integer HSV by up to 16 levels and equals the Tensor backend; grey scale; the
random colour transforms draw as Paddle's."""
import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T
from skiff.vision.transforms import functional as F

from image_reference import chw, hwc, seed

Image = pytest.importorskip("PIL.Image")


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
